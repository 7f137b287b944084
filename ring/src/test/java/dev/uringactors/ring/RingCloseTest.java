package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
class RingCloseTest {
    @Test
    void closeCancelsReadsAndTimeoutsInFlightBeforeTheirMemoryIsFreed() {
        List<Pipe> pipes = new ArrayList<>();
        try (NativeBuffer buffers = NativeBuffer.allocate(64 * 100);
             NativeBuffer ts = NativeBuffer.timespec(Duration.ofHours(1))) {
            Ring ring = Ring.open(256, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
            for (int i = 0; i < 100; i++) {
                Pipe p = new Pipe();
                pipes.add(p);
                ring.nextSqe().prepRead(p.readFd, buffers.address() + 64L * i, 64, -1).userData(i);
                ring.nextSqe().prepTimeout(ts.address(), 0, 0).userData(1000 + i);
            }
            ring.submit();
            assertEquals(200, ring.inFlight());
            List<Integer> results = new ArrayList<>();
            assertTrue(ring.drain((ud, res, flags) -> results.add(res), 5_000_000_000L));
            assertEquals(0, ring.inFlight(), "everything reached its final completion");
            assertTrue(results.stream().filter(r -> r == -Errno.ECANCELED).count() >= 200, "cancelled: " + results);
            ring.close();
            assertThrows(IllegalStateException.class, ring::submit);
        } finally {
            pipes.forEach(Pipe::close);
        }
    }

    @Test
    void closingWithoutDrainingStillUnmapsAndTheJvmSurvives() throws IOException {
        try (NativeBuffer buf = NativeBuffer.allocate(64); Pipe pipe = new Pipe();
             NativeBuffer ts = NativeBuffer.timespec(Duration.ofHours(1))) {
            long mapsBefore = ioUringMappings();
            Ring ring = Ring.open(8);
            long mapsOpen = ioUringMappings();
            ring.nextSqe().prepRead(pipe.readFd, buf.address(), 64, -1);
            ring.nextSqe().prepTimeout(ts.address(), 0, 0);
            ring.submit();
            ring.close(); // drains through cancellation
            assertEquals(0, ring.inFlight());
            // Fewer than while open (the count sees the ring), and at most as many as before: a ring an earlier
            // test left to the garbage collector may close meanwhile.
            long mapsAfter = ioUringMappings();
            assertTrue(mapsAfter < mapsOpen && mapsAfter <= mapsBefore, "io_uring mappings in /proc/self/maps: "
                    + mapsAfter + ", " + mapsOpen + " while open, " + mapsBefore + " before");
        }
    }

    @Test
    void aThousandRingsLeaveNoFdAndNoMappingBehind() throws IOException {
        OpenFds.Snapshot rings = OpenFds.snapshot(OpenFds.Kind.IO_URING);
        long mapsBefore = ioUringMappings();
        for (int i = 0; i < 1000; i++) {
            try (Ring ring = Ring.open(8, SetupFlag.SINGLE_ISSUER)) {
                ring.nextSqe().prepNop();
                ring.submitAndWait(1);
                ring.reap((ud, res, flags) -> { });
            }
        }
        rings.assertNoneNew("io_uring fds left open");
        // At most as many: a ring an earlier test left to the garbage collector may close meanwhile.
        long mapsAfter = ioUringMappings();
        assertTrue(mapsAfter <= mapsBefore, "io_uring mappings in /proc/self/maps: " + mapsAfter + ", " + mapsBefore
                + " before");
    }

    private static long ioUringMappings() throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("io_uring")).count();
        }
    }
}
