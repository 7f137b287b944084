package dev.uringactors.ring.wait;

import dev.uringactors.ring.Ring;
import dev.uringactors.ring.TimerSlack;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The hybrid IOPOLL idea (kernel 6.13) in user space: remember the shortest time from a submission to its first
 * completion; after submitting, sleep for half of it, then spin, and after a bounded spin block in the kernel.
 * Close to spinning's latency for a fraction of its CPU, which the application can use instead.
 *
 * <p>Unlike the kernel, which keeps the shortest time it ever saw, this keeps the shortest of the last
 * {@code window} samples, so the estimate follows the latency up as well as down (a device that got slower
 * would otherwise be polled too early forever). Sleeps shorter than {@code minSleepNanos} are skipped: a timed
 * park costs microseconds itself. The first wait sets the calling thread's timer slack to 1 us, or the kernel
 * would stretch each short sleep by its default 50 us.
 */
public final class HybridPollWait implements WaitStrategy {
    private final long maxSpinNanos;
    private final long minSleepNanos;
    private final int window;

    private long estimateNanos = -1;
    private long windowMin = Long.MAX_VALUE;
    private int windowSamples;
    private long submittedAt = -1;
    private long sleeps;
    private long blocks;
    private Thread preciseSleeper;

    /** 200 us of spinning at most, sleeps of at least 10 us, a window of 16 samples. */
    public HybridPollWait() {
        this(200_000, 10_000, 16);
    }

    public HybridPollWait(long maxSpinNanos, long minSleepNanos, int window) {
        if (maxSpinNanos < 0 || minSleepNanos < 0 || window < 1) {
            throw new IllegalArgumentException("bounds must not be negative and the window at least 1");
        }
        this.maxSpinNanos = maxSpinNanos;
        this.minSleepNanos = minSleepNanos;
        this.window = window;
    }

    @Override
    public int submitAndWait(Ring ring, BooleanSupplier wakeup) {
        if (ring.submit() > 0 && submittedAt < 0) {
            submittedAt = System.nanoTime();
        }
        int ready = ring.pollCompletions();
        if (ready == 0 && ring.inFlight() > 0 && !wakeup.getAsBoolean()) {
            ready = sleepThenSpinThenBlock(ring, wakeup);
        }
        if (ready > 0 && submittedAt >= 0) {
            sample(System.nanoTime() - submittedAt);
            submittedAt = -1;
        }
        return ready;
    }

    private int sleepThenSpinThenBlock(Ring ring, BooleanSupplier wakeup) {
        long sleep = estimateNanos / 2;
        if (sleep >= minSleepNanos) {
            if (preciseSleeper != Thread.currentThread()) {
                preciseSleeper = Thread.currentThread();
                TimerSlack.setForCurrentThread(1_000);
            }
            long since = submittedAt >= 0 ? System.nanoTime() - submittedAt : 0;
            if (sleep > since) {
                sleeps++;
                LockSupport.parkNanos(sleep - since);
            }
        }
        long spinUntil = System.nanoTime() + maxSpinNanos;
        int ready;
        while ((ready = ring.pollCompletions()) == 0 && !wakeup.getAsBoolean() && System.nanoTime() < spinUntil) {
            Thread.onSpinWait();
        }
        if (ready == 0 && !wakeup.getAsBoolean()) {
            blocks++;
            ring.submitAndWait(1);
            ready = ring.cqReady();
        }
        return ready;
    }

    private void sample(long nanos) {
        windowMin = Math.min(windowMin, nanos);
        if (++windowSamples >= window || estimateNanos < 0) {
            estimateNanos = windowMin;
            windowMin = Long.MAX_VALUE;
            windowSamples = 0;
        }
    }

    /** The current estimate of submit-to-completion time, or -1 before the first sample. */
    public long estimateNanos() {
        return estimateNanos;
    }

    /** Timed sleeps taken before polling. */
    public long sleeps() {
        return sleeps;
    }

    /** Waits that outlasted the spin and blocked in the kernel. */
    public long blocks() {
        return blocks;
    }

    @Override
    public String name() {
        return "hybrid";
    }
}
