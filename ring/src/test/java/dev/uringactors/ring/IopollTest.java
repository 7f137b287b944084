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
        Optional<Path> ioPoll = Hardware.ioPollFileOf(file);
        Hardware.BLOCK_DEVICE.assume(ioPoll.isPresent(), "O_DIRECT polling cannot be tried off one");
        boolean polled = Hardware.polled(ioPoll.get());
        Optional<PolledIo.DeviceQueue> queue = PolledIo.of(file);
        assertEquals(ioPoll, queue.map(PolledIo.DeviceQueue::ioPollFile), "the library finds the device's queue");
        assertEquals(polled, queue.get().polled());

        int fd = openDirect(file);
        try (Ring ring = Ring.open(4, SetupFlag.IOPOLL); NativeBuffer buf = NativeBuffer.allocateAligned(4096, 4096)) {
            ring.nextSqe().prepRead(fd, buf.address(), 4096, 0).userData(2);
            int res = Reaped.await(ring, 1).byUserData(2).res();
            if (polled) {
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
        Optional<Path> ioPoll = Hardware.ioPollFileOf(file);
        Hardware.POLL_QUEUES.assume(ioPoll.isPresent() && Hardware.polled(ioPoll.get()),
                ioPoll.map(f -> f + " is 0").orElse("the temp dir is on no block device"));
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

    /** {@code file}, on a block device, opened with O_DIRECT through a plain ring. */
    private static int openDirect(Path file) {
        try (Ring plain = Ring.open(4); NativeBuffer path = NativeBuffer.ofString(file.toString())) {
            plain.nextSqe().prepOpenat(OpFlags.AT_FDCWD, path.address(), OpFlags.O_RDONLY | OpFlags.oDirect(), 0)
                    .userData(1);
            int fd = Reaped.await(plain, 1).byUserData(1).res();
            assertTrue(fd >= 0, "O_DIRECT open of a file on a block device: " + Errno.name(fd));
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
        assumeTrue(KernelFacts.atLeast(6, 13), "HYBRID_IOPOLL needs kernel 6.13, this is " + KernelFacts.release());
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
