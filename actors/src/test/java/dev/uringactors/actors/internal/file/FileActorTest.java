package dev.uringactors.actors.internal.file;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.Backend;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

@BothBackends
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FileActorTest {
    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder()
            .withCustomConfig(ConfigFactory.parseString("uring { rings = 1, buffers.max-io-size = 64 KiB }")).build();

    @TempDir
    Path dir;

    private UringExtension uring() {
        return UringExtension.get(testKit.system());
    }

    private <T> T success(TestProbe<StatusReply<T>> probe) {
        StatusReply<T> reply = probe.receiveMessage();
        assertTrue(reply.isSuccess(), () -> "expected success, got " + reply.getError());
        return reply.getValue();
    }

    private Throwable failure(TestProbe<? extends StatusReply<?>> probe) {
        StatusReply<?> reply = probe.receiveMessage();
        assertTrue(reply.isError(), () -> "expected an error, got " + reply);
        return reply.getError();
    }

    @Test
    void openWriteFsyncStatReadCloseThroughTheRingActor() {
        ActorRef<RingProtocol.Command> ring = UringFiles.get(testKit.system()).ring(0);
        Path file = dir.resolve("protocol");
        TestProbe<StatusReply<FileHandle>> opened = testKit.createTestProbe();
        ring.tell(new RingProtocol.Open(file, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.CREATE), opened.getRef()));
        FileHandle handle = success(opened);
        assertEquals(file, handle.path());

        TestProbe<StatusReply<Integer>> written = testKit.createTestProbe();
        ring.tell(new RingProtocol.Write(handle, 10, ByteString.fromString("ring actor"), written.getRef()));
        assertEquals(10, success(written));

        TestProbe<StatusReply<Done>> done = testKit.createTestProbe();
        ring.tell(new RingProtocol.Fsync(handle, true, done.getRef()));
        success(done);

        TestProbe<StatusReply<FileStat>> stat = testKit.createTestProbe();
        ring.tell(new RingProtocol.Stat(file, stat.getRef()));
        FileStat fileStat = success(stat);
        assertEquals(20, fileStat.size());
        assertTrue(fileStat.isRegularFile() && !fileStat.isDirectory());

        TestProbe<StatusReply<ByteString>> read = testKit.createTestProbe();
        ring.tell(new RingProtocol.Read(handle, 10, 100, read.getRef()));
        assertEquals("ring actor", success(read).utf8String());
        ring.tell(new RingProtocol.Read(handle, 20, 100, read.getRef()));
        assertEquals(0, success(read).size(), "at the end of the file");

        ring.tell(new RingProtocol.Close(handle, done.getRef()));
        success(done);
        ring.tell(new RingProtocol.Close(handle, done.getRef()));
        // A second close closes nothing: the number may belong to another file by now.
        assertInstanceOf(java.nio.channels.ClosedChannelException.class, failure(done));
    }

    @Tag("io-uring-only") // the JDK backend stats the path: it has no descriptor
    @Test
    void anOpenFileIsStattedThroughItsDescriptorWhateverItsPathIsNow() throws Exception {
        Path file = Files.writeString(dir.resolve("before"), "twelve bytes");
        UringFiles files = UringFiles.get(testKit.system());
        FileHandle handle = TestRings.get(files.open(file));
        Files.move(file, dir.resolve("after"));
        FileStat stat = TestRings.get(files.stat(handle));
        assertEquals(12, stat.size());
        assertTrue(stat.isRegularFile());
        TestRings.get(files.close(handle));
        TestRings.assertFailsWith(java.nio.channels.ClosedChannelException.class, files.stat(handle));
    }

    @Test
    void missingFileIsATypedFailureThatNamesThePath() {
        TestProbe<StatusReply<FileHandle>> opened = testKit.createTestProbe();
        Path missing = dir.resolve("missing");
        UringFiles.get(testKit.system()).ring(0).tell(new RingProtocol.Open(missing, Set.of(), opened.getRef()));
        UringException e = assertInstanceOf(UringException.class, failure(opened));
        assertEquals("ENOENT", e.errnoName());
        assertEquals("OPENAT " + missing, e.operation());
    }

    @Test
    void badRequestsAreAnsweredWithTheReason() throws Exception {
        Path file = Files.writeString(dir.resolve("small"), "x");
        FileHandle handle = UringFiles.get(testKit.system()).open(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
        TestProbe<StatusReply<ByteString>> read = testKit.createTestProbe();
        UringFiles.get(testKit.system()).ring(0).tell(new RingProtocol.Read(handle, 0, 1 << 20, read.getRef()));
        Throwable tooLong = failure(read);
        assertInstanceOf(IllegalArgumentException.class, tooLong);
        assertTrue(tooLong.getMessage().contains("uring.buffers.max-io-size"), tooLong.getMessage());
        UringFiles.get(testKit.system()).ring(0).tell(new RingProtocol.Read(handle, -5, 10, read.getRef()));
        assertInstanceOf(IllegalArgumentException.class, failure(read));

        TestProbe<StatusReply<FileHandle>> opened = testKit.createTestProbe();
        UringFiles.get(testKit.system()).ring(0)
                .tell(new RingProtocol.Open(file, Set.of(StandardOpenOption.DELETE_ON_CLOSE), opened.getRef()));
        assertTrue(failure(opened).getMessage().contains("DELETE_ON_CLOSE"));
        UringFiles.get(testKit.system()).close(handle).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Tag("io-uring-only") // a ring thread; the JDK backend has none
    @Test
    void actorsSpawnedOnTheRingDispatcherRunOnTheRingThread() {
        TestProbe<String> probe = testKit.createTestProbe();
        ActorRef<String> onRing = testKit.spawn(Behaviors.receiveMessage(msg -> {
            probe.getRef().tell(Thread.currentThread().getName());
            return Behaviors.same();
        }), "on-ring", uring().dispatcher(0));
        onRing.tell("where");
        assertEquals("uring-ring-0", probe.receiveMessage());
    }

    @Test
    void tenThousandConcurrentReadsAreAllAnswered() throws Exception {
        byte[] data = new byte[4096 * 16];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i / 4096);
        }
        Path file = Files.write(dir.resolve("many"), data);
        UringFiles files = UringFiles.get(testKit.system());
        FileHandle handle = files.open(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
        List<CompletableFuture<ByteString>> reads = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            reads.add(files.read(handle, 4096L * (i % 16), 4096).toCompletableFuture());
        }
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        for (int i = 0; i < reads.size(); i++) {
            ByteString bytes = reads.get(i).join();
            assertEquals(4096, bytes.size());
            assertEquals((byte) (i % 16), bytes.apply(100), "read " + i + " got its own block");
        }
        files.close(handle).toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (uring().backend() == Backend.IO_URING) { // only a ring has counters
            RingLoopStats s = TestRings.stats(testKit.system(), 0);
            assertEquals(0, s.requestsInFlight(), s.toString());
            assertTrue(s.ringStats().enters() < 10_000, "submissions were batched: " + s);
        }
    }

    @Test
    void utf8PathsAndContentSurviveTheRoundTrip() throws Exception {
        Path file = dir.resolve("grüße-файл");
        UringFiles files = UringFiles.get(testKit.system());
        FileHandle h = files.open(file, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        files.write(h, 0, ByteString.fromString("héllo", StandardCharsets.UTF_8)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        files.close(h).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals("héllo", Files.readString(file));
    }
}
