package dev.uringactors.actors;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Each ring's latest counters, for readers that need a value at once (JMX, a metrics registry's scrape): a
 * ring is asked on its own thread at most once per {@code maxAge}, and the caller waits at most
 * {@code uring.request-timeout} for it. Thread-safe.
 */
public final class RingStatsSnapshots {
    private final UringExtension uring;
    private final long maxAgeNanos;
    private final RingLoopStats[] last;
    private final long[] takenAt;

    public RingStatsSnapshots(UringExtension uring, Duration maxAge) {
        this.uring = uring;
        this.maxAgeNanos = maxAge.toNanos();
        this.last = new RingLoopStats[uring.ringCount()];
        this.takenAt = new long[uring.ringCount()];
    }

    public int rings() {
        return last.length;
    }

    /** Ring {@code ring}'s counters, at most {@code maxAge} old; throws if the ring does not answer in time. */
    public synchronized RingLoopStats get(int ring) {
        long now = System.nanoTime();
        if (last[ring] == null || now - takenAt[ring] > maxAgeNanos) {
            Duration timeout = uring.settings().requestTimeout();
            try {
                last[ring] = uring.stats(ring).toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                takenAt[ring] = now;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while asking ring " + ring + " for its counters", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("ring " + ring + " did not give its counters: " + e, e);
            }
        }
        return last[ring];
    }
}
