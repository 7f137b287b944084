package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Opening beneath a directory: what lies inside opens, and no spelling or symlink leads outside. */
@BothBackends
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenBeneathTest {
    @JUnit5TestKit
    ActorTestKit testKit = ActorTestKit.create();

    @TempDir
    Path tmp;

    private <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void opensInsideAndRefusesEveryWayOut() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/inside.txt"), "inside");
        Files.writeString(tmp.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("out-link"), tmp.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("in-link"), Path.of("sub/inside.txt"));
        UringFiles files = UringFiles.get(testKit.system());
        FileHandle dir = await(files.open(root));
        try {
            FileHandle inside = await(files.openBeneath(dir, Path.of("sub/inside.txt")));
            assertEquals("inside", await(files.read(inside, 0, 100)).utf8String());
            assertEquals(root.resolve("sub/inside.txt"), inside.path());
            FileStat stat = FileStat.of(inside);
            assertEquals(6, stat.size());
            assertTrue(stat.isRegularFile());
            await(files.close(inside));
            FileHandle viaLink = await(files.openBeneath(dir, Path.of("in-link")));
            assertEquals("inside", await(files.read(viaLink, 0, 100)).utf8String());
            await(files.close(viaLink));
            assertTrue(FileStat.of(dir).isDirectory());

            for (String escape : new String[] {"../secret.txt", "sub/../../secret.txt", "out-link",
                    tmp.resolve("secret.txt").toString(), "/proc/self/fd/0"}) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> await(files.openBeneath(dir, Path.of(escape))), escape);
                UringException u = assertInstanceOf(UringException.class, e.getCause(), escape);
                assertEquals(Errno.EXDEV, u.errno(), escape + ": " + u.getMessage());
            }
        } finally {
            await(files.close(dir));
        }
        assertEquals("secret", Files.readString(tmp.resolve("secret.txt"), StandardCharsets.UTF_8));
    }
}
