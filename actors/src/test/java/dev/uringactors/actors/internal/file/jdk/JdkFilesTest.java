package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.Backend;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Fifo;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import static dev.uringactors.actors.TestRings.assertFailsWith;
import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the JDK backend's files promise beyond what the shared file tests check: OpenBeneath refuses every way
 * out as openat2 does, with the same errno; every request gets one answer; no fd outlives its close or a failed
 * open; a close waits for the requests taken before it. Runs on the JDK backend whatever {@code uring.backend}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdkFilesTest {
    private final ActorTestKit kit = TestRings.kit("uring { backend = jdk, rings = 2 }");
    private final UringFiles files = UringFiles.get(kit.system());

    @TempDir
    Path tmp;

    @AfterAll
    void shutDown() {
        kit.shutdownTestKit();
    }

    @Test
    void runsOnTheJdkBackendWithNoDescriptorInItsHandles() throws Exception {
        assertEquals(Backend.JDK, UringExtension.get(kit.system()).backend());
        FileHandle file = get(files.open(Files.writeString(tmp.resolve("plain"), "plain"),
                UringOpenOption.REGISTERED));
        assertEquals(FileHandle.NO_DESCRIPTOR, file.fd());
        assertFalse(file.registered(), "REGISTERED means nothing without a ring");
        assertEquals("plain", get(files.read(file, 0, 100)).utf8String());
        get(files.close(file));
    }

    /** The cases of {@link #openBeneathRefusesEveryWayOut}: a path beneath root, and the errno it gives (0: opens). */
    private Map<String, Integer> beneathCases(Path root) throws Exception {
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/inside.txt"), "inside");
        Files.writeString(tmp.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("abs-out"), tmp.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("rel-out"), Path.of("../secret.txt"));
        Files.createSymbolicLink(root.resolve("sub/up-out"), Path.of("../../secret.txt"));
        Files.createSymbolicLink(root.resolve("dir-out"), Path.of(".."));
        Files.createSymbolicLink(root.resolve("in-link"), Path.of("sub/inside.txt"));
        Files.createSymbolicLink(root.resolve("sub/up-in"), Path.of("../sub/inside.txt"));
        Files.createSymbolicLink(root.resolve("loop-a"), Path.of("loop-b"));
        Files.createSymbolicLink(root.resolve("loop-b"), Path.of("loop-a"));
        Map<String, Integer> cases = new LinkedHashMap<>();
        cases.put("sub/inside.txt", 0);
        cases.put("sub/../sub/./inside.txt", 0);
        cases.put("in-link", 0);
        cases.put("sub/up-in", 0);
        cases.put("../secret.txt", Errno.EXDEV);
        cases.put("sub/../../secret.txt", Errno.EXDEV);
        cases.put("abs-out", Errno.EXDEV);
        cases.put("rel-out", Errno.EXDEV);
        cases.put("sub/up-out", Errno.EXDEV);
        cases.put("dir-out/secret.txt", Errno.EXDEV);
        cases.put(tmp.resolve("secret.txt").toString(), Errno.EXDEV);
        cases.put("/proc/self/fd/0", Errno.EXDEV);
        cases.put("loop-a", Errno.ELOOP);
        cases.put("missing", Errno.ENOENT);
        cases.put("sub/inside.txt/below", Errno.ENOTDIR);
        return cases;
    }

    @Test
    void openBeneathRefusesEveryWayOut() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Map<String, Integer> cases = beneathCases(root);
        FileHandle dir = get(files.open(root));
        try {
            cases.forEach((path, errno) -> assertEquals(errno, openBeneathErrno(files, dir, path), path));
            // O_NOFOLLOW refuses a final symlink, even one that stays inside, as open(2) does.
            assertEquals(Errno.ELOOP, errnoOf(files.openBeneath(dir, Path.of("in-link"), LinkOption.NOFOLLOW_LINKS)));
        } finally {
            get(files.close(dir));
        }
        assertEquals("secret", Files.readString(tmp.resolve("secret.txt"), StandardCharsets.UTF_8));
        OpenFds.assertNoneOpen(OpenFds.Kind.under(tmp), "files left open");
    }

    @Test
    @ExtendWith(RequiresIoUring.class) // a ring to compare with
    void openBeneathFailsWithTheRingsErrnoAndOperation() throws Exception {
        ActorTestKit ring = TestRings.kit("uring { backend = io-uring, rings = 1 }");
        try {
            Path root = Files.createDirectories(tmp.resolve("compared"));
            Map<String, Integer> cases = beneathCases(root);
            UringFiles ringFiles = UringFiles.get(ring.system());
            FileHandle jdkDir = get(files.open(root));
            FileHandle ringDir = get(ringFiles.open(root));
            for (String path : cases.keySet()) {
                assertEquals(openBeneathErrno(ringFiles, ringDir, path), openBeneathErrno(files, jdkDir, path), path);
            }
            UringException onJdk = assertInstanceOf(UringException.class, cause(files.openBeneath(jdkDir,
                    Path.of("../secret.txt"))));
            UringException onRing = assertInstanceOf(UringException.class, cause(ringFiles.openBeneath(ringDir,
                    Path.of("../secret.txt"))));
            assertEquals(onRing.getMessage(), onJdk.getMessage());
            get(files.close(jdkDir));
            get(ringFiles.close(ringDir));
        } finally {
            ring.shutdownTestKit();
        }
    }

    /** The errno of opening {@code path} beneath {@code dir}, 0 if it opens (and is then closed). */
    private static int openBeneathErrno(UringFiles files, FileHandle dir, String path) {
        try {
            get(files.close(get(files.openBeneath(dir, Path.of(path)))));
            return 0;
        } catch (Exception e) {
            return errnoOf(e);
        }
    }

    private static int errnoOf(CompletionStage<?> stage) {
        return assertInstanceOf(UringException.class, cause(stage)).errno();
    }

    private static int errnoOf(Exception e) {
        Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
        return assertInstanceOf(UringException.class, cause, String.valueOf(cause)).errno();
    }

    private static Throwable cause(CompletionStage<?> stage) {
        return assertThrows(ExecutionException.class, () -> get(stage)).getCause();
    }

    @Test
    void everyRequestIsAnsweredOnceWhetherItSucceedsFailsOrIsRefused() throws Exception {
        Path path = Files.write(tmp.resolve("answered"), new byte[8192]);
        ActorRef<RingProtocol.Command> actor = files.ring(1);
        TestProbe<StatusReply<?>> answers = kit.createTestProbe();
        FileHandle file = get(files.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE));
        FileHandle closed = get(files.open(path));
        get(files.close(closed));
        int sent = 0;
        for (int i = 0; i < 50; i++) {
            actor.tell(new RingProtocol.Read(file, 512L * i, 512, cast(answers)));
            actor.tell(new RingProtocol.Read(file, -1, 512, cast(answers)));
            actor.tell(new RingProtocol.Read(closed, 0, 512, cast(answers)));
            actor.tell(new RingProtocol.ReadBatch(file, new long[] {0, 4096, 100_000}, 16, cast(answers)));
            actor.tell(new RingProtocol.ReadWith<>(file, 0, 16, b -> {
                throw new IllegalStateException("a reader's bug");
            }, cast(answers)));
            actor.tell(new RingProtocol.Write(file, 0, ByteString.fromString("x"), cast(answers)));
            actor.tell(new RingProtocol.Fsync(file, i % 2 == 0, cast(answers)));
            actor.tell(new RingProtocol.Stat(tmp.resolve("missing"), cast(answers)));
            actor.tell(new RingProtocol.StatFile(file, cast(answers)));
            actor.tell(new RingProtocol.Open(tmp.resolve("missing"), Set.of(), cast(answers)));
            actor.tell(new RingProtocol.Nop(cast(answers)));
            sent += 11;
        }
        int successes = 0;
        for (int i = 0; i < sent; i++) {
            if (answers.receiveMessage(Duration.ofSeconds(10)).isSuccess()) {
                successes++;
            }
        }
        answers.expectNoMessage(Duration.ofMillis(200));
        assertEquals(50 * 6, successes, "reads, batches, writes, fsyncs, stats of the file, nops");
        get(files.close(file));
    }

    @Test
    void aReaderThatThrowsAnErrorIsAnsweredWithIt() throws Exception {
        FileHandle file = get(files.open(Files.writeString(tmp.resolve("read-with"), "read with")));
        AssertionError bug = new AssertionError("a reader's failed assert");
        CompletionStage<Integer> read = files.read(file, 0, 16, b -> {
            throw bug;
        });
        Throwable failure = cause(read);
        // Scala's futures box an Error answer in an ExecutionException of their own: the reader's is its cause.
        assertSame(bug, failure instanceof ExecutionException ? failure.getCause() : failure, failure.toString());
        assertEquals(9, (int) get(files.read(file, 0, 16, b -> b.remaining())), "the file was given back");
        get(files.close(file));
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) // one probe takes the answers to every kind of request
    private static <T> ActorRef<StatusReply<T>> cast(TestProbe<StatusReply<?>> probe) {
        return (ActorRef) probe.getRef();
    }

    @Test
    void noFdOutlivesItsCloseOrAFailedOpen() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("fds"));
        Path path = Files.writeString(dir.resolve("file"), "content");
        Files.createSymbolicLink(dir.resolve("out"), tmp);
        FileHandle root = get(files.open(dir));
        for (int i = 0; i < 200; i++) {
            FileHandle file = get(i % 2 == 0 ? files.open(path) : files.openBeneath(root, Path.of("file")));
            assertEquals("content", get(files.read(file, 0, 100)).utf8String());
            get(files.close(file));
            assertFailsWith(UringException.class, files.open(dir.resolve("missing")));
            assertFailsWith(UringException.class, files.open(path, StandardOpenOption.WRITE,
                    StandardOpenOption.CREATE_NEW));
            assertFailsWith(UringException.class, files.openBeneath(root, Path.of("out/fds/file")));
            assertFailsWith(IllegalArgumentException.class, files.open(path, StandardOpenOption.DELETE_ON_CLOSE));
        }
        get(files.close(root));
        OpenFds.assertNoneOpen(OpenFds.Kind.under(tmp), "files left open");
    }

    @Test
    void aCloseWaitsForTheRequestsTakenBeforeItAndRefusesLaterOnes() throws Exception {
        // A read of a FIFO stays in flight until something is written: the close comes while it runs.
        Path fifo = Fifo.create(tmp, "fifo");
        FileHandle file = get(files.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
        CompletionStage<ByteString> read = files.read(file, 0, 4);
        CompletionStage<Done> closed = files.close(file);
        assertFailsWith(ClosedChannelException.class, files.read(file, 0, 4));
        assertFalse(closed.toCompletableFuture().isDone(), "the close waits for the read it came after");
        Files.write(fifo, "1234".getBytes(StandardCharsets.US_ASCII));
        assertEquals("1234", get(read).utf8String(), "a FIFO is read where it stands, as the ring reads it");
        get(closed);
        OpenFds.assertNoneOpen(OpenFds.Kind.under(tmp), "files left open");
    }

    /**
     * A FIFO opened for reading only or writing only is refused at once with ENXIO, every way it can be opened;
     * the JDK's open would wait for its other end, each such request holding a thread of the file dispatcher (a
     * file server's 70 requests for one held all 64, and every file request after them waited).
     */
    @Test
    void aFifoOpenedForOneDirectionIsRefusedAtOnceInsteadOfWaitingForItsOtherEnd() throws Exception {
        Path fifo = Fifo.create(tmp, "one-way");
        FileHandle dir = get(files.open(tmp));
        List<CompletionStage<FileHandle>> opens = new ArrayList<>();
        for (int i = 0; i < 100; i++) { // more than the dispatcher's threads
            opens.add(files.open(fifo));
            opens.add(files.open(fifo, StandardOpenOption.WRITE));
            opens.add(files.openBeneath(dir, Path.of("one-way")));
        }
        for (CompletionStage<FileHandle> open : opens) {
            assertEquals(Errno.ENXIO, assertFailsWith(UringException.class, open).errno());
        }
        Path plain = Files.writeString(tmp.resolve("after"), "served");
        FileHandle after = get(files.open(plain));
        assertEquals("served", get(files.read(after, 0, 10)).utf8String(), "the dispatcher is free");
        get(files.close(after));
        get(files.close(dir));
        OpenFds.assertNoneOpen(OpenFds.Kind.under(tmp), "files left open");
    }

    @Test
    void aFileOpenedBeneathIsStatedAsItselfNotAsASymlinkPutInItsPlaceSince() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("stated"));
        Files.writeString(root.resolve("data"), "12345");
        Path outside = Files.write(tmp.resolve("outside"), new byte[100]);
        FileHandle dir = get(files.open(root));
        FileHandle file = get(files.openBeneath(dir, Path.of("data")));
        assertEquals(5, get(files.stat(file)).size());
        assertTrue(get(files.stat(file)).isRegularFile());
        Files.delete(root.resolve("data"));
        Files.createSymbolicLink(root.resolve("data"), outside);
        assertEquals(5, get(files.stat(file)).size(), "the open file's size, not that of the file the link names");
        get(files.close(file));
        get(files.close(dir));
    }

    @Test
    void theJdksFailuresAreTheRingsErrnos() throws Exception {
        Path readOnly = Files.writeString(tmp.resolve("read-only"), "r");
        FileHandle file = get(files.open(readOnly));
        UringException write = assertInstanceOf(UringException.class,
                cause(files.write(file, 0, ByteString.fromString("w"))));
        assertEquals(Errno.EBADF, write.errno());
        assertEquals("WRITE " + readOnly, write.operation());
        get(files.close(file));
        FileHandle dir = get(files.open(tmp));
        assertEquals(Errno.EISDIR, errnoOf(files.read(dir, 0, 10)));
        get(files.close(dir));
        assertEquals(Errno.EEXIST, errnoOf(files.open(readOnly, StandardOpenOption.WRITE,
                StandardOpenOption.CREATE_NEW)));
        UringException missing = assertInstanceOf(UringException.class, cause(files.stat(tmp.resolve("gone"))));
        assertEquals("STATX " + tmp.resolve("gone"), missing.operation());
        assertEquals(Errno.ENOENT, missing.errno());
        Path created = tmp.resolve("created");
        get(files.close(get(files.open(created, StandardOpenOption.WRITE, StandardOpenOption.CREATE))));
        assertTrue(Files.getPosixFilePermissions(created).stream().noneMatch(p -> p.name().endsWith("EXECUTE")
                || p.name().endsWith("_WRITE") && !p.name().startsWith("OWNER")), "created 0644 less the umask");
    }
}
