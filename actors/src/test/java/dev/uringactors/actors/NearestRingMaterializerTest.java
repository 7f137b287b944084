package dev.uringactors.actors;

import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.SourceQueueWithComplete;
import org.apache.pekko.japi.Pair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link UringExtension#materializer()}: a stream materialized on a ring's thread runs there, one materialized
 * elsewhere on the default dispatcher; a stream fed from both kinds of thread (its actor then runs on either)
 * still sees every element once; one that never rests leaves its ring its other work; and one still running on a
 * ring at shutdown is ended with the system, whose ring threads end too.
 */
@BothBackends
@ExtendWith(RequiresIoUring.class)
class NearestRingMaterializerTest {
    private final ActorTestKit kit = TestRings.kit("uring.rings = 2");
    private final UringExtension uring = UringExtension.get(kit.system());

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    @Tag("io-uring-only") // ring threads
    @Test
    void aStreamMaterializedOnARingRunsOnThatRing() throws Exception {
        for (int ring = 0; ring < 2; ring++) {
            assertEquals("uring-ring-" + ring, get(materializedOn(ring)), "stream materialized on ring " + ring);
        }
    }

    @Test
    void aStreamMaterializedElsewhereRunsOnTheDefaultDispatcher() throws Exception {
        String thread = get(Source.single(0).map(x -> Thread.currentThread().getName())
                .runWith(Sink.head(), uring.materializer()));
        assertTrue(thread.contains("default-dispatcher"), thread);
    }

    @Test
    void aStreamFedFromARingAndFromElsewhereGetsEveryElementOnce() throws Exception {
        Materializer materializer = uring.materializer();
        CompletableFuture<Pair<SourceQueueWithComplete<Integer>, CompletionStage<List<Integer>>>> started =
                new CompletableFuture<>();
        ringExecutor(0).execute(() -> started.complete(Source.<Integer>queue(10_000, OverflowStrategy.fail())
                .toMat(Sink.seq(), Keep.both()).run(materializer)));
        SourceQueueWithComplete<Integer> queue = get(started).first();
        for (int i = 0; i < 1000; i++) {
            int element = i;
            if (i % 2 == 0) {
                get(queue.offer(element));
            } else {
                CompletableFuture<Object> offered = new CompletableFuture<>();
                ringExecutor(1).execute(() -> queue.offer(element).whenComplete((r, e) -> offered.complete(r)));
                get(offered);
            }
        }
        queue.complete();
        List<Integer> seen = get(started).second().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(1000, seen.size());
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, seen.get(i));
        }
    }

    @Tag("io-uring-only") // a ring's own work
    @Test
    void aStreamThatNeverRestsOnARingLeavesTheRingItsOtherWork() throws Exception {
        CompletableFuture<UniqueKillSwitch> started = new CompletableFuture<>();
        ringExecutor(0).execute(() -> started.complete(Source.repeat(1).viaMat(KillSwitches.single(), Keep.right())
                .to(Sink.ignore()).run(uring.materializer())));
        UniqueKillSwitch hot = get(started);
        try {
            RingLoopStats first = get(uring.stats(0));
            RingLoopStats last = first;
            // Each ask is answered on the ring's thread (within get's 10 s): not starved. Asks sent back to back can
            // all be answered in one run of the supervisor's mailbox, so they go on until 20 turns have passed.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (last.turns() - first.turns() < 20 && System.nanoTime() < deadline) {
                last = get(uring.stats(0));
            }
            // Before uring.dispatcher.turn-time, each ask waited out a turn of 256 (tasks-per-turn) of the stream's
            // runs, 470-585 ms; the turn now ends after its time, a run or two. (The asks' latency is a figure.)
            long turns = last.turns() - first.turns();
            long tasks = last.tasksRun() - first.tasksRun();
            assertTrue(turns >= 20, "the ring turned " + turns + " times in 10 s behind a busy stream");
            assertTrue(tasks < 16 * turns, tasks + " tasks in " + turns + " turns behind a busy stream");
        } finally {
            hot.shutdown();
        }
    }

    @Tag("io-uring-only") // ring threads
    @Test
    void aStreamStillRunningOnARingEndsWithTheSystemAndSoDoTheRingThreads() throws Exception {
        CompletableFuture<CompletionStage<Done>> started = new CompletableFuture<>();
        CompletableFuture<Thread> ringThread = new CompletableFuture<>();
        ringExecutor(0).execute(() -> {
            ringThread.complete(Thread.currentThread());
            started.complete(Source.maybe().watchTermination(Keep.right()).to(Sink.ignore())
                    .run(uring.materializer()));
        });
        CompletableFuture<Done> ended = get(started).toCompletableFuture();
        assertFalse(ended.isDone(), "the stream never ends by itself");
        kit.shutdownTestKit();
        CompletableFuture<Object> answered = ended.handle((done, failure) -> failure != null ? failure : done);
        assertTrue(answered.get(10, TimeUnit.SECONDS) instanceof Throwable, "the stream was ended by the shutdown");
        Thread thread = get(ringThread);
        thread.join(10_000);
        assertFalse(thread.isAlive(), thread.getName() + " outlived its system");
    }

    private CompletionStage<String> materializedOn(int ring) {
        CompletableFuture<String> thread = new CompletableFuture<>();
        ringExecutor(ring).execute(() -> Source.single(0).map(x -> Thread.currentThread().getName())
                .runWith(Sink.head(), uring.materializer()).whenComplete((name, e) -> {
                    if (e != null) {
                        thread.completeExceptionally(e);
                    } else {
                        thread.complete(name);
                    }
                }));
        return thread;
    }

    private Executor ringExecutor(int ring) {
        return kit.system().dispatchers().lookup(uring.dispatcher(ring));
    }
}
