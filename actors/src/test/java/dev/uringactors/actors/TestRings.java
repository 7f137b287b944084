package dev.uringactors.actors;

import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the ring tests share: waiting for answers, and faults reported as a ring's loop would report them. */
final class TestRings {
    private TestRings() {
    }

    /** The value of {@code stage}, within 10 s. */
    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** {@code stage} fails, within 10 s, with a {@code type}. */
    static void assertFailsWith(Class<? extends Throwable> type, CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(stage));
        assertInstanceOf(type, e.getCause(), e.toString());
    }

    /** Ring {@code ring}'s counters, within 10 s. */
    static RingLoopStats stats(UringExtension uring, int ring) throws Exception {
        return get(uring.stats(ring));
    }

    /** Which ring is open at index {@code ring} now (1 for the first, one more per restart). */
    static int generation(UringExtension uring, int ring) throws Exception {
        return stats(uring, ring).generation();
    }

    /** Reports a fault of ring {@code ring} that names the ring open there now; returns its generation. */
    static int fault(UringExtension uring, int ring, String message) throws Exception {
        int generation = generation(uring, ring);
        uring.supervisor(ring).tell(new RingSupervisor.Fault(new IllegalStateException(message), generation));
        return generation;
    }

    /** Waits up to 10 s until ring {@code ring} has been opened anew as {@code generation}. */
    static void awaitGeneration(UringExtension uring, int ring, int generation) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int now;
        do {
            now = generation(uring, ring);
        } while (now < generation && System.nanoTime() < deadline);
        assertEquals(generation, now, "ring " + ring + " opened anew");
    }
}
