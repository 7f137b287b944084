package dev.uringactors.ring.wait;

import dev.uringactors.ring.Ring;
import dev.uringactors.ring.TimerSlack;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The hybrid IOPOLL idea (kernel 6.13) in user space: sleep until about half the expected completion time has
 * passed, then spin, and after a bounded spin block in the kernel. Close to spinning's latency for a fraction of
 * its CPU, which the application can use instead.
 *
 * <p>When should polling start? Given a {@link CompletionForecast} (the actor loop gives one), from the time it
 * names: half the estimated completion time of the first request due, estimated per kind of request, and never
 * for requests with no predictable completion (a socket receive): with only those in flight it blocks at once.
 * Without a forecast (a bare {@link Ring}) it times the submissions itself, one {@link LatencyEstimate} for all.
 *
 * <p>A sleep costs: the timer fires late by the thread's timer slack, and parking and waking take time. The
 * strategy measures how much longer than asked its sleeps take and asks for that much less (a smoothed mean),
 * so that it wakes when it meant to; when what is left is shorter than {@code minSleepNanos}, it spins instead.
 * The first sleep sets the thread's timer slack to 1 us, or the kernel would stretch each sleep by 50 us.
 */
public final class HybridPollWait implements WaitStrategy {
    /** Sleeps skipped for their cost before one is taken anyway, to measure that cost again. */
    static final int REPROBE_EVERY = 1024;

    private final long maxSpinNanos;
    private final long minSleepNanos;
    private final LongSupplier clock;
    private final LongConsumer sleeper;
    /** Without a forecast: the submission-to-first-completion time of everything. */
    private final LatencyEstimate selfTimed;
    private long submittedAt = -1;
    /** How much longer than asked a sleep takes, smoothed: asked for that much less next time. */
    private long oversleepNanos;
    private Thread preciseSleeper;
    /** Sleeps skipped because they would overshoot, since the last one taken. */
    private int skippedForCost;

    private long sleeps;
    private long sleepRequestedNanos;
    private long sleepActualNanos;
    private long readyOnWake;
    private long spinNanos;
    private long blocks;

    /** 200 us of spinning at most, sleeps of at least 10 us, a window of 16 samples. */
    public HybridPollWait() {
        this(200_000, 10_000, 16);
    }

    /**
     * Spins at most {@code maxSpinNanos} after a sleep; sleeps only when half the expected time is at least {@code
     * minSleepNanos}; estimates from the last {@code window} completions.
     */
    public HybridPollWait(long maxSpinNanos, long minSleepNanos, int window) {
        this(maxSpinNanos, minSleepNanos, window, System::nanoTime, LockSupport::parkNanos);
    }

    /** With a clock and a sleep of the caller's (a test's fake ones). */
    HybridPollWait(long maxSpinNanos, long minSleepNanos, int window, LongSupplier clock, LongConsumer sleeper) {
        if (maxSpinNanos < 0 || minSleepNanos < 0) {
            throw new IllegalArgumentException("bounds must not be negative");
        }
        this.maxSpinNanos = maxSpinNanos;
        this.minSleepNanos = minSleepNanos;
        this.selfTimed = new LatencyEstimate(window);
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /** Without a forecast: polls from half the estimate after the first submission still waiting. */
    @Override
    public int submitAndWait(Ring ring, BooleanSupplier wakeup) {
        if (ring.submit() > 0 && submittedAt < 0) {
            submittedAt = clock.getAsLong();
        }
        long estimate = selfTimed.nanos();
        long from = (submittedAt >= 0 ? submittedAt : clock.getAsLong()) + Math.max(0, estimate / 2);
        int ready = waitFrom(ring, wakeup, from);
        if (ready > 0 && submittedAt >= 0) {
            selfTimed.sample(clock.getAsLong() - submittedAt);
            submittedAt = -1;
        }
        return ready;
    }

    @Override
    public int submitAndWait(Ring ring, BooleanSupplier wakeup, CompletionForecast forecast) {
        ring.submit();
        return waitFrom(ring, wakeup, forecast.pollFromNanos());
    }

    private int waitFrom(Ring ring, BooleanSupplier wakeup, long pollFrom) {
        int ready = ring.pollCompletions();
        if (ready > 0 || ring.inFlight() == 0 || wakeup.getAsBoolean()) {
            return ready;
        }
        if (pollFrom != CompletionForecast.NOTHING_EXPECTED && sleepUntil(pollFrom)) {
            if ((ready = ring.pollCompletions()) > 0) {
                readyOnWake++;
                return ready;
            }
        }
        if (pollFrom != CompletionForecast.NOTHING_EXPECTED) {
            long start = clock.getAsLong();
            long spinUntil = start + maxSpinNanos;
            while ((ready = ring.pollCompletions()) == 0 && !wakeup.getAsBoolean()
                    && clock.getAsLong() < spinUntil) {
                Thread.onSpinWait();
            }
            spinNanos += clock.getAsLong() - start;
        }
        if (ready == 0 && !wakeup.getAsBoolean()) {
            blocks++;
            ring.submitAndWait(1);
            ready = ring.cqReady();
        }
        return ready;
    }

    /**
     * Sleeps until about {@code pollFrom}, asking for less by what sleeps overshoot; false if not worth it. A
     * sleep skipped only because of that overshoot is taken now and then all the same ({@link #REPROBE_EVERY}),
     * so that a machine on which sleeping got cheaper is noticed.
     */
    boolean sleepUntil(long pollFrom) {
        long now = clock.getAsLong();
        long request = pollFrom - now - oversleepNanos;
        if (request < minSleepNanos) {
            if (pollFrom - now < minSleepNanos || ++skippedForCost < REPROBE_EVERY) {
                return false;
            }
            request = pollFrom - now; // measure again what a sleep costs
        }
        skippedForCost = 0;
        if (preciseSleeper != Thread.currentThread()) {
            preciseSleeper = Thread.currentThread();
            TimerSlack.setForCurrentThread(1_000);
        }
        sleeper.accept(request);
        long actual = clock.getAsLong() - now;
        sleeps++;
        sleepRequestedNanos += request;
        sleepActualNanos += actual;
        oversleepNanos = Math.max(0, oversleepNanos + (actual - request - oversleepNanos) / 8);
        return true;
    }

    /** The self-timed estimate of submit-to-completion time (without a forecast), or -1 before the first. */
    public long estimateNanos() {
        return selfTimed.nanos();
    }

    /** How much longer than asked sleeps take, as the strategy now corrects for it. */
    public long oversleepNanos() {
        return oversleepNanos;
    }

    /** Timed sleeps taken before polling. */
    public long sleeps() {
        return sleeps;
    }

    /** Waits that blocked in the kernel. */
    public long blocks() {
        return blocks;
    }

    @Override
    public WaitStats stats() {
        return new WaitStats(sleeps, sleepRequestedNanos, sleepActualNanos, readyOnWake, spinNanos, blocks);
    }

    @Override
    public String name() {
        return "hybrid";
    }
}
