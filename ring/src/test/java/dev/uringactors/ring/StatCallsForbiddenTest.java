package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tests' filter: a thread that has it cannot stat a file itself, yet its ring's STATX works. */
@ExtendWith(RequiresIoUring.class)
class StatCallsForbiddenTest {
    @Test
    void theThreadCannotStatButItsRingCan() throws Exception {
        CompletableFuture<Integer> ringStatx = new CompletableFuture<>();
        Thread filtered = new Thread(() -> {
            try (Ring ring = Ring.open(4); NativeBuffer root = NativeBuffer.ofString("/");
                 NativeBuffer statx = NativeBuffer.allocate(256)) {
                assertEquals(0, statx(ring, root, statx), "before"); // loads the classes it needs
                StatCallsForbidden.onThisThread();
                assertFalse(Files.isDirectory(Path.of("/")), "Files.isDirectory stats");
                ringStatx.complete(statx(ring, root, statx));
            } catch (Throwable e) {
                ringStatx.completeExceptionally(e);
            }
        });
        filtered.start();
        assertEquals(0, ringStatx.get(10, TimeUnit.SECONDS), "io_uring's STATX runs where the filter is not");
        assertTrue(Files.isDirectory(Path.of("/")), "other threads are not affected");
    }

    private static int statx(Ring ring, NativeBuffer path, NativeBuffer statx) {
        ring.nextSqe().prepStatx(OpFlags.AT_FDCWD, path.address(), 0, OpFlags.STATX_BASIC_STATS, statx.address())
                .userData(1);
        return Reaped.await(ring, 1).byUserData(1).res();
    }
}
