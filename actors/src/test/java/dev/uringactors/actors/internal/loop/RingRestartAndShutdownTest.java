package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.RingFailedException;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.ring.Fifo;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.uringactors.actors.TestRings.fault;
import static dev.uringactors.actors.TestRings.generation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A fresh actor system per test: each one breaks or stops its ring. */
@ExtendWith(RequiresIoUring.class)
class RingRestartAndShutdownTest {
    @TempDir
    Path dir;
    ActorTestKit testKit;
    UringExtension uring;
    FileHandle fifo;

    @BeforeEach
    void start() throws Exception {
        testKit = TestRings.kit("uring { rings = 1, shutdown-timeout = 2s }");
        uring = UringExtension.get(testKit.system());
        // O_RDWR on a FIFO opens at once; reads of it stay in flight until someone writes.
        fifo = UringFiles.get(testKit.system()).open(Fifo.create(dir, "fifo"), StandardOpenOption.READ,
                StandardOpenOption.WRITE).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() {
        testKit.shutdownTestKit();
    }

    private TestProbe<StatusReply<ByteString>> readsInFlight(int n) throws Exception {
        TestProbe<StatusReply<ByteString>> probe = testKit.createTestProbe();
        for (int i = 0; i < n; i++) {
            UringFiles.get(testKit.system()).ring(0).tell(new RingProtocol.Read(fifo, 0, 64, probe.getRef()));
        }
        assertEquals(n, TestRings.stats(testKit.system(), 0).requestsInFlight());
        probe.expectNoMessage(Duration.ofMillis(50));
        return probe;
    }

    @Test
    void aStaleFaultQueuedBeforeARestartDoesNotRestartTheNewRing() throws Exception {
        ActorTestKit strict = TestRings.kit("uring { rings = 1, supervision { max-restarts = 1, within = 1m } }");
        try {
            UringExtension u = UringExtension.get(strict.system());
            int first = generation(strict.system(), 0);
            // A loop that fails reports every turn until the supervisor hears of it: two reports about one ring.
            Rings rings = IoBackends.rings(strict.system());
            RingFaults.report(rings, 0, new IllegalStateException("turn 1"), first);
            RingFaults.report(rings, 0, new IllegalStateException("turn 2"), first);
            TestProbe<StatusReply<Done>> nop = strict.createTestProbe();
            UringFiles.get(strict.system()).ring(0).tell(new RingProtocol.Nop(nop.getRef()));
            assertTrue(nop.receiveMessage(Duration.ofSeconds(5)).isSuccess(),
                    "one restart, within a budget of one: the second report was about the ring replaced");
            assertEquals(first + 1, generation(strict.system(), 0));
        } finally {
            strict.shutdownTestKit();
        }
    }

    @Test
    void crashedRingAnswersEveryRequestInFlightPromptlyAndComesBack() throws Exception {
        TestProbe<StatusReply<ByteString>> probe = readsInFlight(50);
        long before = System.nanoTime();
        fault(testKit.system(), 0, "injected ring failure");
        for (int i = 0; i < 50; i++) {
            StatusReply<ByteString> reply = probe.receiveMessage(Duration.ofSeconds(5));
            assertTrue(reply.isError());
            RingFailedException e = assertInstanceOf(RingFailedException.class, reply.getError());
            assertTrue(e.getMessage().contains("injected ring failure"), e.getMessage());
        }
        assertTrue(System.nanoTime() - before < 3_000_000_000L, "answered within the drain timeout");

        TestProbe<StatusReply<Done>> nop = testKit.createTestProbe();
        UringFiles.get(testKit.system()).ring(0).tell(new RingProtocol.Nop(nop.getRef()));
        assertTrue(nop.receiveMessage(Duration.ofSeconds(5)).isSuccess(), "a new ring serves requests");
        RingLoopStats s = TestRings.stats(testKit.system(), 0);
        assertEquals(0, s.requestsInFlight(), s.toString());
        assertTrue(s.ringStats().submitted() <= 3, "counters of the new ring: " + s);
    }

    @Test
    void aRingThatFailsTooOftenStaysClosedAndAnswersAtOnce() throws Exception {
        ActorTestKit strict = TestRings.kit("uring { rings = 1, supervision { max-restarts = 1, within = 1m } }");
        try {
            UringExtension u = UringExtension.get(strict.system());
            TestProbe<StatusReply<Done>> nop = strict.createTestProbe();
            fault(strict.system(), 0, "first");
            UringFiles.get(strict.system()).ring(0).tell(new RingProtocol.Nop(nop.getRef()));
            assertTrue(nop.receiveMessage(Duration.ofSeconds(5)).isSuccess(), "restarted once: still serving");

            fault(strict.system(), 0, "second");
            long before = System.nanoTime();
            UringFiles.get(strict.system()).ring(0).tell(new RingProtocol.Nop(nop.getRef()));
            StatusReply<Done> refused = nop.receiveMessage(Duration.ofSeconds(5));
            assertTrue(System.nanoTime() - before < 3_000_000_000L, "answered, not left to time out");
            RingFailedException e = assertInstanceOf(RingFailedException.class, refused.getError());
            assertTrue(e.getMessage().contains("stays closed"), e.getMessage());
        } finally {
            strict.shutdownTestKit();
        }
    }

    @Test
    void shutdownAnswersReadsInFlightThenEveryLaterRequest() throws Exception {
        TestProbe<StatusReply<ByteString>> probe = readsInFlight(20);
        uring.shutdown().toCompletableFuture().get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 20; i++) {
            StatusReply<ByteString> reply = probe.receiveMessage(Duration.ofSeconds(5));
            assertTrue(reply.isError());
            assertTrue(reply.getError().getMessage().contains("shut down"), reply.getError().getMessage());
        }
        TestProbe<StatusReply<Done>> nop = testKit.createTestProbe();
        UringFiles.get(testKit.system()).ring(0).tell(new RingProtocol.Nop(nop.getRef()));
        StatusReply<Done> late = nop.receiveMessage(Duration.ofSeconds(5));
        assertTrue(late.isError() && late.getError().getMessage().contains("shut down"), late.toString());
    }

    /**
     * The stop is seen at the end of a turn that turn-time cut short: what was still queued on the ring, and the
     * request it makes, reach the ring before it closes (they were refused "shut down" before).
     */
    @Test
    void workQueuedWhenTheStopIsSeenStillReachesTheRing() throws Exception {
        ActorTestKit shortTurns = TestRings.kit("uring { rings = 1, dispatcher.turn-time = 1us }");
        try {
            Rings rings = IoBackends.rings(shortTurns.system());
            ActorRef<RingProtocol.Command> files = UringFiles.get(shortTurns.system()).ring(0);
            TestProbe<StatusReply<Done>> nop = shortTurns.createTestProbe();
            // The file actor starts through the system's guardian, on another thread: once it has answered, it
            // runs, and what is told it below goes straight to its mailbox on the ring.
            files.tell(new RingProtocol.Nop(nop.getRef()));
            assertTrue(nop.receiveMessage(Duration.ofSeconds(5)).isSuccess());
            RingLoop loop = rings.loop(0);
            loop.execute(() -> {
                rings.shutdown(); // on the ring's thread: the loop sees it once this turn ends
                loop.execute(() -> loop.execute(() -> files.tell(new RingProtocol.Nop(nop.getRef()))));
            });
            StatusReply<Done> reply = nop.receiveMessage(Duration.ofSeconds(5));
            assertTrue(reply.isSuccess(), reply.toString());
        } finally {
            shortTurns.shutdownTestKit();
        }
    }

    /** An actor that never rests keeps work queued: the ring closes anyway, within uring.shutdown-timeout (2 s). */
    @Test
    void aRingKeptBusyClosesWithinTheShutdownTimeout() throws Exception {
        TestProbe<StatusReply<ByteString>> probe = readsInFlight(1);
        testKit.spawn(Behaviors.<String>receive((ctx, m) -> {
            ctx.getSelf().tell(m);
            return Behaviors.same();
        }), "busy", uring.dispatcher(0)).tell("go");
        long start = System.nanoTime();
        uring.shutdown().toCompletableFuture().get(10, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 2_000, "the busy ring closed after " + millis + " ms");
        StatusReply<ByteString> reply = probe.receiveMessage(Duration.ofSeconds(5));
        assertTrue(reply.isError() && reply.getError().getMessage().contains("shut down"), reply.toString());
    }

    @Test
    void wakeUpsFromAForeignThreadCostFarFewerEventfdWritesThanMessages() throws Exception {
        int messages = 100_000;
        TestProbe<Integer> done = testKit.createTestProbe();
        ActorRef<StatusReply<Done>> counter = testKit.spawn(
                Behaviors.setup(ctx -> {
                    int[] count = {0};
                    return Behaviors.<StatusReply<Done>>receiveMessage(m -> {
                        if (++count[0] == messages) {
                            done.getRef().tell(count[0]);
                        }
                        return Behaviors.same();
                    });
                }), "counter", uring.dispatcher(0));
        long wakesBefore = TestRings.stats(testKit.system(), 0).wakeSignals();
        for (int i = 0; i < messages; i++) {
            UringFiles.get(testKit.system()).ring(0).tell(new RingProtocol.Nop(counter));
        }
        assertEquals(messages, done.receiveMessage(Duration.ofSeconds(60)));
        long wakes = TestRings.stats(testKit.system(), 0).wakeSignals() - wakesBefore;
        assertTrue(wakes < messages / 20, "eventfd writes for " + messages + " messages: " + wakes);
    }
}
