package dev.uringactors.actors.internal.issue;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.ring.IoWqWorkers;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.Ring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code uring.io-wq.max-workers} is in force on the ring thread's io-wq from the start, and again after the ring
 * is opened anew. The io-wq is the thread's, shared by every ring it submits to: a probe ring opened on that
 * thread reads the caps back (a 0 changes nothing, and the kernel answers with what is in force).
 */
@ExtendWith(RequiresIoUring.class)
class IoWqCapTest {
    private static final IoWqWorkers CAP = new IoWqWorkers(3, 5);

    @Test
    void theCapIsAppliedEachTimeTheRingOpens() throws Exception {
        ActorTestKit testKit = TestRings.kit("uring { rings = 1, io-wq.max-workers { bounded = 3, unbounded = 5 } }");
        try {
            ActorSystem<?> system = testKit.system();
            assertEquals(CAP, onRingThread(system, probe -> probe.registerIoWqMaxWorkers(0, 0)));
            onRingThread(system, probe -> probe.registerIoWqMaxWorkers(7, 9)); // as if the cap had been lost
            int generation = TestRings.fault(system, 0, "injected fault");
            TestRings.awaitGeneration(system, 0, generation + 1);
            assertEquals(CAP, onRingThread(system, probe -> probe.registerIoWqMaxWorkers(0, 0)));
        } finally {
            testKit.shutdownTestKit();
        }
    }

    /** {@code call}'s answer, run on ring 0's thread with a probe ring of that thread's own. */
    private static IoWqWorkers onRingThread(ActorSystem<?> system, Function<Ring, IoWqWorkers> call)
            throws Exception {
        CompletableFuture<IoWqWorkers> answer = new CompletableFuture<>();
        IoBackends.rings(system).loop(0).execute(() -> {
            try (Ring probe = Ring.open(2)) {
                answer.complete(call.apply(probe));
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        return TestRings.get(answer);
    }
}
