package dev.uringactors.actors;

import java.time.Duration;
import java.util.ArrayDeque;

/**
 * How many times a ring may be restarted within a time window ({@code uring.supervision}). It outlives the
 * actor's incarnations, which is what lets a restarted actor know that the ring is to stay closed.
 */
final class RestartBudget {
    private final int maxRestarts;
    private final Duration within;
    private final ArrayDeque<Long> recent = new ArrayDeque<>();
    private boolean exhausted;

    RestartBudget(int maxRestarts, Duration within) {
        this.maxRestarts = maxRestarts;
        this.within = within;
    }

    /** Counts a restart; false when it is one too many, and from then on the budget is exhausted. */
    boolean spend() {
        long now = System.nanoTime();
        while (!recent.isEmpty() && now - recent.peek() > within.toNanos()) {
            recent.poll();
        }
        if (recent.size() >= maxRestarts) {
            exhausted = true;
            return false;
        }
        recent.add(now);
        return true;
    }

    boolean exhausted() {
        return exhausted;
    }

    @Override
    public String toString() {
        return maxRestarts + " times within " + within;
    }
}
