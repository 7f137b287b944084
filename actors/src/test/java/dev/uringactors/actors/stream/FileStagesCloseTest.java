package dev.uringactors.actors.stream;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.RingFailedException;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.stream.IOOperationIncompleteException;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The file stages close every file they open, however their stream ends and whenever their open completes. */
@BothBackends
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FileStagesCloseTest {
    private final ActorTestKit kit = TestRings.kit("uring.rings = 2");

    @TempDir
    Path dir;

    @AfterAll
    void shutDown() {
        kit.shutdownTestKit();
    }

    @Tag("io-uring-only") // fails a ring
    @Test
    void aSourceWhoseOpenSucceedsWhileAnotherRingRefusesLeavesNoFileOpen() throws Exception {
        ActorTestKit broken = TestRings.kit("uring { rings = 2, supervision { max-restarts = 0, within = 1m } }");
        try {
            ActorSystem<Void> system = broken.system();
            TestRings.fault(system, 1, "injected: ring 1 gives up");
            awaitRefusals(system, 1);
            Path file = Files.writeString(dir.resolve("opened-on-ring-0"), "content");
            // The open goes to ring 0, which serves; whatever the stage asks next of ring 1 is refused.
            UringExtension uring = UringExtension.get(system);
            while (uring.nextRing() != 1) {
                Thread.onSpinWait();
            }
            CompletionStage<IOResult> io = UringFileIO.fromPath(file).to(Sink.ignore()).run(system);
            // The whole file read: the open succeeded, and the stage had its file to close.
            assertEquals("content".length(), io.toCompletableFuture().get(10, TimeUnit.SECONDS).getCount());
            OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "files left open");
        } finally {
            broken.shutdownTestKit();
        }
    }

    @Test
    void aSourceCancelledBeforeItsOpenCompletesClosesTheFileOnceOpened() throws Exception {
        Path file = Files.writeString(dir.resolve("cancelled"), "content");
        // Sink.cancelled cancels as the stream starts: the stage stops before the open can have been answered.
        CompletionStage<IOResult> io = UringFileIO.fromPath(file).to(Sink.cancelled()).run(kit.system());
        assertEquals(0, io.toCompletableFuture().get(10, TimeUnit.SECONDS).getCount());
        OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "files left open");
    }

    @Test
    void aSinkTornDownMidWriteClosesItsFile() throws Exception {
        Materializer materializer = Materializer.createMaterializer(kit.system());
        Path file = dir.resolve("torn-down");
        CompletionStage<IOResult> io = endless().runWith(UringFileIO.toPath(file), materializer);
        awaitWritten(file);
        materializer.shutdown();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> io.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertInstanceOf(IOOperationIncompleteException.class, e.getCause());
        OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "files left open");
    }

    @Test
    void aHundredCancelledSourcesAndAHundredSinksTornDownMidWriteLeaveNoFileOpen() throws Exception {
        Path source = Files.writeString(dir.resolve("source"), "content");
        List<CompletionStage<IOResult>> sources = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            sources.add(UringFileIO.fromPath(source).to(Sink.cancelled()).run(kit.system()));
        }
        for (CompletionStage<IOResult> io : sources) {
            io.toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        Materializer materializer = Materializer.createMaterializer(kit.system());
        List<Path> sinks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Path file = dir.resolve("sink-" + i);
            sinks.add(file);
            endless().runWith(UringFileIO.toPath(file), materializer);
        }
        for (Path file : sinks) {
            awaitWritten(file);
        }
        materializer.shutdown();
        OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "files left open");
    }

    private static Source<ByteString, ?> endless() {
        return Source.repeat(ByteString.fromArray(new byte[8192]));
    }

    /** Waits up to 10 s until some bytes of the stream have reached {@code file}. */
    private static void awaitWritten(Path file) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(Files.exists(file) && Files.size(file) > 0) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(Files.size(file) > 0, file + " is being written");
    }

    /** Waits up to 10 s until ring {@code ring}'s file actor refuses requests: the ring gave up. */
    private static void awaitRefusals(ActorSystem<?> system, int ring) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Throwable answer;
        do {
            CompletionStage<Done> nop = AskPattern.askWithStatus(
                    UringFiles.get(system).ring(ring), RingProtocol.Nop::new,
                    Duration.ofSeconds(10), system.scheduler());
            answer = nop.toCompletableFuture().handle((done, e) -> e).get(10, TimeUnit.SECONDS);
        } while (answer == null && System.nanoTime() < deadline);
        assertInstanceOf(RingFailedException.class, answer instanceof CompletionException
                ? answer.getCause() : answer);
    }
}
