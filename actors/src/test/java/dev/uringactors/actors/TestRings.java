package dev.uringactors.actors;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.internal.loop.RingFaults;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the ring tests share: waiting for answers, and faults reported as a ring's loop would report them. */
public final class TestRings {
    private TestRings() {
    }

    /** A test kit whose actor system runs with {@code config} (HOCON, e.g. {@code "uring.rings = 1"}) over the defaults. */
    public static ActorTestKit kit(String config) {
        return ActorTestKit.create(ConfigFactory.parseString(config).withFallback(ConfigFactory.load()));
    }

    /** The value of {@code stage}, within 10 s. */
    public static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** {@code stage} fails, within 10 s, with a {@code type}: that failure. */
    public static <E extends Throwable> E assertFailsWith(Class<E> type, CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(stage));
        return assertInstanceOf(type, e.getCause(), e.toString());
    }

    /** Ring {@code ring}'s counters, within 10 s. */
    public static RingLoopStats stats(ActorSystem<?> system, int ring) throws Exception {
        return get(IoBackends.get(system).stats(ring));
    }

    /** Which ring is open at index {@code ring} now (1 for the first, one more per restart). */
    public static int generation(ActorSystem<?> system, int ring) throws Exception {
        return stats(system, ring).generation();
    }

    /** Reports a fault of ring {@code ring} that names the ring open there now; returns its generation. */
    public static int fault(ActorSystem<?> system, int ring, String message) throws Exception {
        int generation = generation(system, ring);
        RingFaults.report(IoBackends.rings(system), ring, new IllegalStateException(message), generation);
        return generation;
    }

    /** Waits up to 10 s until ring {@code ring} has been opened anew as {@code generation}. */
    public static void awaitGeneration(ActorSystem<?> system, int ring, int generation) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int now;
        do {
            now = generation(system, ring);
        } while (now < generation && System.nanoTime() < deadline);
        assertEquals(generation, now, "ring " + ring + " opened anew");
    }
}
