package dev.uringactors.ring.wait;

import dev.uringactors.ring.Ring;

import java.util.function.BooleanSupplier;

/**
 * Spins on the CQ (and {@code wakeup}) and never sleeps: the lowest latency, and one core kept busy for as long
 * as requests are in flight.
 */
public final class ClassicPollWait implements WaitStrategy {
    @Override
    public int submitAndWait(Ring ring, BooleanSupplier wakeup) {
        ring.submit();
        int ready;
        while ((ready = ring.pollCompletions()) == 0 && ring.inFlight() > 0 && !wakeup.getAsBoolean()) {
            Thread.onSpinWait();
        }
        return ready;
    }

    @Override
    public String name() {
        return "classic";
    }
}
