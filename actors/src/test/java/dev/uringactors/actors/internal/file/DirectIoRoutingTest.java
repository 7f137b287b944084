package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Hardware;
import dev.uringactors.ring.KernelFacts;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** O_DIRECT files with uring.iopoll on a disk without poll queues (the usual VM disk). */
@Tag("io-uring-only") // O_DIRECT files routed to the IOPOLL ring
@ExtendWith(RequiresIoUring.class)
class DirectIoRoutingTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "iopoll = {0}, fallback = {1}")
    @CsvSource({"on, fail", "hybrid, plain", "auto, fail"})
    void directFilesOnADeviceWithoutPollQueues(String iopoll, String fallback) throws Exception {
        Path file = dir.resolve("direct");
        byte[] data = new byte[8192];
        data[4096] = 42;
        Files.write(file, data);
        Optional<Path> ioPoll = Hardware.ioPollFileOf(file);
        Hardware.NO_POLL_QUEUES.assume(ioPoll.isPresent() && !Hardware.polled(ioPoll.get()),
                ioPoll.map(f -> f + " is 1: the fallback cannot be seen").orElse("the temp dir is on no block device"));
        assumeTrue(!iopoll.equals("hybrid") || KernelFacts.atLeast(6, 13),
                "HYBRID_IOPOLL needs kernel 6.13, this is " + KernelFacts.release());

        ActorTestKit testKit = TestRings.kit("uring { rings = 1, iopoll = " + iopoll + ", iopoll-fallback = " + fallback + " }");
        try {
            UringFiles files = UringFiles.get(testKit.system());
            var open = files.open(file, UringOpenOption.DIRECT).toCompletableFuture();
            if (iopoll.equals("on") && fallback.equals("fail")) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> open.get(10, TimeUnit.SECONDS));
                UringException refused = assertInstanceOf(UringException.class, e.getCause());
                assertEquals(Errno.EOPNOTSUPP, refused.errno());
                assertTrue(refused.getMessage().contains(ioPoll.get().toString()), refused.getMessage());
                return;
            }
            FileHandle handle = open.get(10, TimeUnit.SECONDS);
            assertTrue(handle.direct());
            assertFalse(handle.polled(), "no poll queues: the plain ring serves it");
            ByteString block = files.read(handle, 4096, 4096).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(4096, block.size());
            assertEquals(42, block.apply(0));
            files.close(handle).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            testKit.shutdownTestKit();
        }
    }

    /** The IOPOLL companion ring sets up under every wait strategy (TASKRUN_FLAG once broke classic and hybrid). */
    @ParameterizedTest(name = "iopoll = on, wait-strategy = {0}")
    @CsvSource({"interrupt", "classic", "hybrid"})
    void theIopollRingStartsUnderEveryWaitStrategy(String strategy) throws Exception {
        ActorTestKit testKit = TestRings.kit("uring { rings = 1, iopoll = on, wait-strategy = " + strategy + " }");
        try {
            Path file = Files.write(dir.resolve("plain"), new byte[] {1, 2, 3});
            UringFiles files = UringFiles.get(testKit.system());
            FileHandle handle = files.open(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(3, files.read(handle, 0, 3).toCompletableFuture().get(10, TimeUnit.SECONDS).size());
            files.close(handle).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            testKit.shutdownTestKit();
        }
    }
}
