package dev.uringactors.actors.stream;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.stream.IOOperationIncompleteException;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.javadsl.FileIO;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@BothBackends
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UringFileIOTest {
    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder()
            .withCustomConfig(ConfigFactory.parseString("uring.rings = 2")).build();

    @TempDir
    Path dir;

    private static byte[] sha256(Path file) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) > 0; ) {
                digest.update(chunk, 0, n);
            }
        }
        return digest.digest();
    }

    @Test
    void hundredMebibytesFromPathToPathKeepTheirChecksum() throws Exception {
        Path source = dir.resolve("source");
        long size = 100L << 20;
        try (var out = Files.newOutputStream(source)) {
            Random random = new Random(42);
            byte[] block = new byte[1 << 20];
            for (long written = 0; written < size; written += block.length) {
                random.nextBytes(block);
                out.write(block);
            }
        }
        Path target = dir.resolve("target");
        var results = UringFileIO.fromPath(source, 64 * 1024)
                .toMat(UringFileIO.toPath(target), Keep.both())
                .run(testKit.system());
        IOResult read = results.first().toCompletableFuture().get(120, TimeUnit.SECONDS);
        IOResult written = results.second().toCompletableFuture().get(120, TimeUnit.SECONDS);
        assertEquals(size, read.getCount());
        assertEquals(size, written.getCount());
        assertEquals(size, Files.size(target));
        assertArrayEquals(sha256(source), sha256(target));
    }

    @Test
    void chunksAreWhatFileIoWouldEmit() throws Exception {
        byte[] data = new byte[100_001];
        new Random(7).nextBytes(data);
        Path file = Files.write(dir.resolve("chunks"), data);
        List<ByteString> ours = UringFileIO.fromPath(file, 8192).runWith(Sink.seq(), testKit.system())
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
        List<ByteString> pekko = FileIO.fromPath(file, 8192).runWith(Sink.seq(), testKit.system())
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(pekko, ours);
        assertEquals(13, ours.size());
    }

    @Test
    void emptyFileGivesAnEmptyStream() throws Exception {
        Path file = Files.write(dir.resolve("empty"), new byte[0]);
        CompletionStage<IOResult> io = UringFileIO.fromPath(file).to(Sink.ignore()).run(testKit.system());
        assertEquals(0, io.toCompletableFuture().get(10, TimeUnit.SECONDS).getCount());
    }

    @Test
    void missingSourceFailsTheStreamAndTheIoResultWithTheTypedError() {
        CompletionStage<IOResult> io = UringFileIO.fromPath(dir.resolve("missing")).to(Sink.ignore())
                .run(testKit.system());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> io.toCompletableFuture().get(10, TimeUnit.SECONDS));
        IOOperationIncompleteException incomplete = assertInstanceOf(IOOperationIncompleteException.class,
                e.getCause());
        assertEquals(Errno.ENOENT, assertInstanceOf(UringException.class, incomplete.getCause()).errno());
    }

    @Test
    void appendingSinkAddsToTheEnd() throws Exception {
        Path file = Files.writeString(dir.resolve("log"), "one\n");
        Source.from(List.of("two\n", "three\n")).map(ByteString::fromString)
                .runWith(UringFileIO.toPath(file, Set.of(StandardOpenOption.WRITE, StandardOpenOption.APPEND)),
                        testKit.system())
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals("one\ntwo\nthree\n", Files.readString(file));
    }

    @Test
    void sinkIntoAMissingDirectoryFailsWithTheTypedError() {
        CompletionStage<IOResult> io = Source.single(ByteString.fromString("x"))
                .runWith(UringFileIO.toPath(dir.resolve("no/such/dir/file")), testKit.system());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> io.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getCause() instanceof UringException, e.toString());
    }
}
