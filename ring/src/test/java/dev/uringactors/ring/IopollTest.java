package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@ExtendWith(RequiresIoUring.class)
class IopollTest {
    @TempDir
    Path dir;

    @Test
    void odirectReadOnAnIopollRingWorksOrSaysTheDeviceHasNoPollQueues() throws Exception {
        Path file = dir.resolve("direct");
        Files.write(file, new byte[8192]);
        Optional<PolledIo.DeviceQueue> queue = PolledIo.of(file);
        assumeTrue(queue.isPresent(), "the temp dir is not on a block device, so O_DIRECT polling cannot be tried");

        int fd = openDirect(file);
        try (Ring ring = Ring.open(4, SetupFlag.IOPOLL); NativeBuffer buf = NativeBuffer.allocateAligned(4096, 4096)) {
            ring.nextSqe().prepRead(fd, buf.address(), 4096, 0).userData(2);
            int res = Reaped.await(ring, 1).byUserData(2).res();
            if (queue.get().polled()) {
                assertEquals(4096, res, "the device has poll queues: the polled read works");
            } else {
                assertEquals(-Errno.EOPNOTSUPP, res);
                UringException e = UringException.ofResult(Opcode.READ, res, file.toString(), ring.setupFlags());
                String hint = e.hint().orElseThrow();
                assertTrue(hint.contains("no poll queues"), hint);
                assertTrue(hint.contains(queue.get().ioPollFile().toString()), "names the sysfs file: " + hint);
            }
        } finally {
            close(fd);
        }
    }

    @Test
    void withSqpollTheSqThreadPollsAndTheRingNeverEntersForCompletions() throws Exception {
        Path file = dir.resolve("polled");
        Files.write(file, new byte[8 * 4096]);
        Optional<PolledIo.DeviceQueue> queue = PolledIo.of(file);
        assumeTrue(queue.isPresent() && queue.get().polled(), "needs a block device with poll queues (io_poll = 1)"
                + " under the temp dir; " + queue.map(q -> q.ioPollFile() + " is 0").orElse("it is on none"));
        int fd = openDirect(file);
        RingOptions options = RingOptions.defaults().withEntries(8).withSqThreadIdle(java.time.Duration.ofSeconds(1))
                .withFlags(SetupFlag.SQPOLL, SetupFlag.IOPOLL);
        try (Ring ring = Ring.open(options); NativeBuffer buf = NativeBuffer.allocateAligned(8 * 4096, 4096)) {
            for (int i = 0; i < 8; i++) {
                ring.nextSqe().prepRead(fd, buf.address() + i * 4096L, 4096, i * 4096L).userData(10 + i);
            }
            ring.submit();
            Reaped reaped = new Reaped();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (reaped.cqes.size() < 8 && System.nanoTime() < deadline) {
                ring.pollCompletions();
                ring.reap(reaped);
            }
            assertEquals(8, reaped.cqes.size(), "every polled read completed");
            RingStats stats = ring.stats();
            assertEquals(stats.sqWakeups(), stats.enters(), "no io_uring_enter but to wake the SQ thread: " + stats);
        } finally {
            close(fd);
        }
    }

    /** {@code file} opened with O_DIRECT through a plain ring; the test is skipped where that cannot be done. */
    private static int openDirect(Path file) {
        try (Ring plain = Ring.open(4); NativeBuffer path = NativeBuffer.ofString(file.toString())) {
            plain.nextSqe().prepOpenat(OpFlags.AT_FDCWD, path.address(), OpFlags.O_RDONLY | OpFlags.oDirect(), 0)
                    .userData(1);
            int fd = Reaped.await(plain, 1).byUserData(1).res();
            assumeTrue(fd >= 0, "O_DIRECT open failed here: " + Errno.name(fd));
            return fd;
        }
    }

    private static void close(int fd) {
        try (Ring closer = Ring.open(4)) {
            closer.nextSqe().prepClose(fd).userData(3);
            Reaped.await(closer, 1);
        }
    }

    @Test
    void hybridIopollIsAcceptedWithIopoll() {
        assumeTrue(RequiresIoUring.probe().supports(SetupFlag.HYBRID_IOPOLL), "HYBRID_IOPOLL needs kernel 6.13");
        try (Ring ring = Ring.open(4, SetupFlag.IOPOLL, SetupFlag.HYBRID_IOPOLL)) {
            assertTrue(ring.has(SetupFlag.HYBRID_IOPOLL));
        }
    }

    @Test
    void filesOffBlockDevicesHaveNoDeviceQueue() {
        assertTrue(PolledIo.of(Path.of("/proc/self/status")).isEmpty());
        assertTrue(!PolledIo.supported(Path.of("/proc/self/status")));
    }
}
