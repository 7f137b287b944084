package dev.uringactors.ring.wait;

import dev.uringactors.ring.Ring;

import java.util.function.BooleanSupplier;

/**
 * How a ring's issuer waits for completions once it has nothing else to do. Implementations trade latency
 * against CPU: {@link InterruptWait} sleeps in the kernel, {@link ClassicPollWait} spins, {@link HybridPollWait}
 * sleeps about half the expected completion time, then spins, then sleeps in the kernel.
 *
 * <p>All of them work with DEFER_TASKRUN rings, where completions only appear when the owner enters the
 * kernel: spinning goes through {@link Ring#pollCompletions()}, which enters with min_complete 0. A strategy
 * belongs to one ring and its issuer thread.
 */
public interface WaitStrategy {
    /**
     * Submits what the issuer prepared, then waits until completions are ready to reap, {@code wakeup} turns
     * true (other work arrived; a strategy that sleeps in the kernel relies on a completion, such as an eventfd
     * read, to be woken for it), or nothing is in flight. Returns the completions ready to reap.
     */
    int submitAndWait(Ring ring, BooleanSupplier wakeup);

    /**
     * As {@link #submitAndWait(Ring, BooleanSupplier)}, told by the ring's owner when completions are due: a
     * polling strategy spins only for requests with a completion time to expect. Strategies that do not poll
     * ignore it.
     */
    default int submitAndWait(Ring ring, BooleanSupplier wakeup, CompletionForecast forecast) {
        return submitAndWait(ring, wakeup);
    }

    /** Where the strategy's waiting time went; strategies that do not poll report nothing. */
    default WaitStats stats() {
        return WaitStats.NONE;
    }

    /** Submits and waits for completions, with no other source of work. */
    default int submitAndWait(Ring ring) {
        return submitAndWait(ring, () -> false);
    }

    /** The configuration name: "interrupt", "classic" or "hybrid". */
    String name();

    /** The strategy by configuration name, with default bounds. */
    static WaitStrategy named(String name) {
        return switch (name) {
            case "interrupt" -> new InterruptWait();
            case "classic" -> new ClassicPollWait();
            case "hybrid" -> new HybridPollWait();
            default -> throw new IllegalArgumentException(
                    "unknown wait strategy '" + name + "': use interrupt, classic or hybrid");
        };
    }
}
