package dev.uringactors.actors.internal.loop;

import java.time.Duration;
import java.util.ArrayDeque;

/**
 * How many times a ring may be restarted within a time window ({@code uring.supervision}).
 */
final class RestartBudget {
    private final int maxRestarts;
    private final Duration within;
    private final ArrayDeque<Long> recent = new ArrayDeque<>();

    RestartBudget(int maxRestarts, Duration within) {
        this.maxRestarts = maxRestarts;
        this.within = within;
    }

    /** Counts a restart; false when it is one too many. */
    boolean spend() {
        long now = System.nanoTime();
        while (!recent.isEmpty() && now - recent.peek() > within.toNanos()) {
            recent.poll();
        }
        if (recent.size() >= maxRestarts) {
            return false;
        }
        recent.add(now);
        return true;
    }

    @Override
    public String toString() {
        return maxRestarts + " times within " + within;
    }
}
