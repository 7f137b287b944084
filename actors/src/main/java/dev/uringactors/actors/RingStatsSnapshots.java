package dev.uringactors.actors;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Each ring's latest counters, for readers that need a value at once (JMX, a metrics registry's scrape): a
 * ring is asked on its own thread at most once per {@code maxAge}, and the caller waits at most {@link #WAIT}
 * for it. A ring that does not answer in time (a handler stuck on its thread, which the stuck-task watchdog
 * reports) gives its last counters again rather than hold the reader up. Thread-safe.
 */
public final class RingStatsSnapshots {
    /** How long a reader waits for a ring's answer. */
    public static final Duration WAIT = Duration.ofSeconds(1);
    private final UringExtension uring;
    private final long maxAgeNanos;
    private final RingLoopStats[] last;
    private final long[] takenAt;

    /** Snapshots of {@code uring}'s rings, each taken again once older than {@code maxAge}. */
    public RingStatsSnapshots(UringExtension uring, Duration maxAge) {
        this.uring = uring;
        this.maxAgeNanos = maxAge.toNanos();
        this.last = new RingLoopStats[uring.runningRings()];
        this.takenAt = new long[uring.runningRings()];
    }

    /** The number of rings that run (none under the JDK backend). */
    public int rings() {
        return last.length;
    }

    /**
     * Ring {@code ring}'s counters, at most {@code maxAge} old, or its last ones when it does not answer within
     * {@link #WAIT}; throws only if it never answered.
     */
    public synchronized RingLoopStats get(int ring) {
        long now = System.nanoTime();
        if (last[ring] == null || now - takenAt[ring] > maxAgeNanos) {
            try {
                last[ring] = uring.stats(ring).toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                takenAt[ring] = now;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return lastOrFail(ring, e);
            } catch (ExecutionException | TimeoutException e) {
                return lastOrFail(ring, e);
            }
        }
        return last[ring];
    }

    private RingLoopStats lastOrFail(int ring, Exception cause) {
        if (last[ring] == null) {
            throw new IllegalStateException("ring " + ring + " did not give its counters: " + cause, cause);
        }
        return last[ring];
    }
}
