package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code UringFiles.readAll}: a file whole, whatever its size (none, one read, several), the errors of a missing
 * file and of a directory as the open and the read give them, and never an fd left open, also with a thousand
 * at once.
 */
@BothBackends
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadAllTest {
    @JUnit5TestKit
    ActorTestKit testKit = ActorTestKit.create();

    @TempDir
    Path dir;

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void readsWholeFilesOfEverySize() throws Exception {
        UringFiles files = UringFiles.get(testKit.system());
        Random random = new Random(7);
        for (int size : new int[] {0, 1, 4096, 128 * 1024, 128 * 1024 + 1, 3 * 128 * 1024 + 17, 1 << 20}) {
            byte[] content = new byte[size];
            random.nextBytes(content);
            Path file = Files.write(dir.resolve("file-" + size), content);
            ByteString read = await(files.readAll(file));
            assertArrayEquals(content, read.toArray(), size + " bytes");
        }
        OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "every file read was closed");
    }

    @Test
    void aMissingFileOrADirectoryFailsAsTheOpenOrTheReadDoes() throws Exception {
        UringFiles files = UringFiles.get(testKit.system());
        ExecutionException missing = assertThrows(ExecutionException.class,
                () -> await(files.readAll(dir.resolve("missing"))));
        assertEquals(Errno.ENOENT, assertInstanceOf(UringException.class, missing.getCause()).errno());
        Path subdirectory = Files.createDirectories(dir.resolve("sub"));
        ExecutionException directory = assertThrows(ExecutionException.class,
                () -> await(files.readAll(subdirectory)));
        assertEquals(Errno.EISDIR, assertInstanceOf(UringException.class, directory.getCause()).errno());
        OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "the directory was closed after its read failed");
    }

    @Test
    void aThousandAtOnceAreEachAnsweredWholeAndLeaveNoFdOpen() throws Exception {
        UringFiles files = UringFiles.get(testKit.system());
        byte[] content = new byte[4096];
        new Random(11).nextBytes(content);
        Path file = Files.write(dir.resolve("small"), content);
        List<CompletionStage<ByteString>> reads = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            reads.add(files.readAll(file));
        }
        for (CompletionStage<ByteString> read : reads) {
            assertArrayEquals(content, await(read).toArray());
        }
        OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "every file read was closed");
    }
}
