package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.OpenedFile;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.OpenFds;
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

    /**
     * The open and the stat in one request: the stat is of the file opened (its size, its type), a directory says
     * so, an escape or a missing file fails as the open alone does, and no descriptor stays open after the files
     * are closed.
     */
    @Test
    void opensWithTheStatOfTheFileItOpened() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("statted"));
        Files.createDirectories(root.resolve("sub"));
        Files.write(root.resolve("sub/four-k"), new byte[4096]);
        Files.writeString(tmp.resolve("outside.txt"), "outside");
        Files.createSymbolicLink(root.resolve("out-link"), tmp.resolve("outside.txt"));
        UringFiles files = UringFiles.get(testKit.system());
        FileHandle dir = await(files.open(root));
        try {
            for (int i = 0; i < 100; i++) {
                OpenedFile opened = await(files.openBeneathWithStat(dir, Path.of("sub/four-k")));
                assertEquals(4096, opened.stat().size());
                assertTrue(opened.stat().isRegularFile());
                assertEquals(root.resolve("sub/four-k"), opened.file().path());
                assertEquals(4096, await(files.read(opened.file(), 0, 8192)).size());
                await(files.close(opened.file()));
            }
            OpenedFile sub = await(files.openBeneathWithStat(dir, Path.of("sub")));
            assertTrue(sub.stat().isDirectory());
            await(files.close(sub.file()));
            for (String refused : new String[] {"../outside.txt", "out-link", "missing"}) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> await(files.openBeneathWithStat(dir, Path.of(refused))), refused);
                UringException u = assertInstanceOf(UringException.class, e.getCause(), refused);
                assertEquals(refused.equals("missing") ? Errno.ENOENT : Errno.EXDEV, u.errno(), refused);
            }
        } finally {
            await(files.close(dir));
        }
        OpenFds.assertNoneOpen(OpenFds.Kind.under(tmp), "every file opened was closed");
    }
}
