package dev.uringactors.actors;

import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.OverflowStrategy;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link UringExtension#materializer()}: a stream materialized on a ring's thread runs there, one materialized
 * elsewhere on the default dispatcher; and a stream fed from both kinds of thread still sees every element once.
 */
@Tag("both-backends")
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
