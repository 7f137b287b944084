package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.JavaCommand;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Registered buffers ({@code uring.buffers.fixed}): reads and writes that fit one go out as READ_FIXED and
 * WRITE_FIXED and give the same bytes as plain ones; where the kernel refuses to register them, the plain path
 * serves all and the log says why.
 */
@ExtendWith(RequiresIoUring.class)
class FixedBuffersTest {
    private static final int SIZE = 100_000;
    @TempDir
    Path dir;
    private ActorTestKit kit;
    private UringFiles files;
    private UringExtension uring;
    private byte[] content;
    private Path path;

    @BeforeEach
    void start() throws Exception {
        kit = TestRings.kit("uring { rings = 1, buffers.fixed { count = 4, size = 8 KiB } }");
        files = UringFiles.get(kit.system());
        uring = UringExtension.get(kit.system());
        content = new byte[SIZE];
        new Random(5).nextBytes(content);
        path = Files.write(dir.resolve("data"), content);
    }

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void readsThroughRegisteredBuffersGiveTheBytesOfTheFile() throws Exception {
        FileHandle file = files.open(path).toCompletableFuture().get(10, TimeUnit.SECONDS);
        long before = fixedUses();
        int[][] cases = {{0, 1}, {1, 4095}, {4096, 4096}, {777, 8192}, {SIZE - 10, 100}, {SIZE, 10}, {3, 8193}};
        for (int[] c : cases) {
            ByteString read = files.read(file, c[0], c[1]).toCompletableFuture().get(10, TimeUnit.SECONDS);
            int end = Math.min(SIZE, c[0] + c[1]);
            assertArrayEquals(Arrays.copyOfRange(content, Math.min(c[0], SIZE), end), read.toArray(),
                    "read of " + c[1] + " at " + c[0]);
        }
        assertEquals(6, fixedUses() - before, "every read that fits 8 KiB used a registered buffer");

        // More reads in flight than registered buffers: the rest take plain ones, all give the right bytes.
        List<CompletableFuture<ByteString>> reads = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            reads.add(files.read(file, i * 3001L, 4096).toCompletableFuture());
        }
        for (int i = 0; i < 32; i++) {
            assertArrayEquals(Arrays.copyOfRange(content, i * 3001, i * 3001 + 4096),
                    reads.get(i).get(10, TimeUnit.SECONDS).toArray(), "concurrent read " + i);
        }
        files.close(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void writesThroughRegisteredBuffersLandWhereAsked() throws Exception {
        FileHandle file = files.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        long before = fixedUses();
        byte[] small = "x".repeat(5000).getBytes(StandardCharsets.US_ASCII);
        byte[] large = "y".repeat(9000).getBytes(StandardCharsets.US_ASCII);
        assertEquals(5000, files.write(file, 123, ByteString.fromArray(small)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS));
        assertEquals(9000, files.write(file, 50_000, ByteString.fromArray(large)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS));
        files.close(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
        System.arraycopy(small, 0, content, 123, small.length);
        System.arraycopy(large, 0, content, 50_000, large.length);
        assertArrayEquals(content, Files.readAllBytes(path));
        assertEquals(1, fixedUses() - before, "the 5,000-byte write used a registered buffer, the 9,000 not");
    }

    @Test
    void whereRegistrationIsRefusedPlainBuffersServeAndTheLogSaysWhy() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")) && Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "needs prlimit(1) and setpriv(1) (util-linux) to run a JVM with little locked memory");
        // Locked memory is counted per user, and root's processes are exempt (CAP_IPC_LOCK): run by root, the
        // child runs as nobody, from a copy of the class path it can read. With 1 MiB it has room for its ring,
        // not for 1 MiB of registered buffers.
        Path shared = Files.createDirectories(dir.resolve("shared"));
        String classPath = readableCopy(System.getProperty("java.class.path"), shared.resolve("cp"));
        Path data = Files.copy(path, shared.resolve("data"));
        makeReadable(dir);
        List<String> command = new ArrayList<>();
        if (System.getProperty("user.name").equals("root")) {
            command.addAll(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
        }
        command.addAll(List.of("/usr/bin/prlimit", "--memlock=1048576:1048576", "--"));
        command.addAll(JavaCommand.java());
        command.addAll(List.of("-cp", classPath,
                FixedBuffersRefusedMain.class.getName(), data.toString()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("registered buffers (uring.buffers.fixed) refused"), output);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        assertTrue(output.contains("sha256 " + sha + " fixed-uses 0"), output);
    }

    /** Copies each class path entry (jar or directory) under {@code target}; returns the copy's class path. */
    private static String readableCopy(String classPath, Path target) throws Exception {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path source = Path.of(entry);
            if (!Files.exists(source)) {
                continue;
            }
            Path copy = target.resolve(n++ + "-" + source.getFileName());
            try (var paths = Files.walk(source)) {
                for (Path p : (Iterable<Path>) paths::iterator) {
                    Path to = copy.resolve(source.relativize(p).toString());
                    Files.createDirectories(to.getParent());
                    if (!Files.isDirectory(p)) {
                        Files.copy(p, to);
                    }
                }
            }
            entries.add(copy.toString());
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private static void makeReadable(Path root) throws Exception {
        try (var paths = Files.walk(root)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString(
                        Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
    }

    private long fixedUses() throws Exception {
        return uring.stats(0).toCompletableFuture().get(10, TimeUnit.SECONDS).fixedBufferUses();
    }
}
