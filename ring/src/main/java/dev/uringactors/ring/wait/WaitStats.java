package dev.uringactors.ring.wait;

/**
 * Where a polling strategy's time went, since the ring started.
 *
 * @param sleeps timed sleeps taken before polling
 * @param sleepRequestedNanos the sleeps' requested length, in all
 * @param sleepActualNanos how long they really took, in all (the difference is the cost of sleeping: timer slack,
 *                         the park and the wake-up)
 * @param readyOnWake sleeps after which a completion was already waiting: the sleep ran past it
 * @param spinNanos time spent spinning for completions
 * @param blocks waits that blocked in the kernel: nothing to expect, or a spin that outlasted its bound
 */
public record WaitStats(long sleeps, long sleepRequestedNanos, long sleepActualNanos, long readyOnWake,
                        long spinNanos, long blocks) {
    /** No waits at all: the stats of a strategy that keeps none. */
    public static final WaitStats NONE = new WaitStats(0, 0, 0, 0, 0, 0);
}
