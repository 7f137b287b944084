package dev.uringactors.ring.wait;

/**
 * The completion time of one kind of request, as hybrid polling needs it: the shortest of the last
 * {@code window} samples. The shortest, because polling should start in time for the fastest completion; of a
 * window rather than of all time, so that the estimate follows the latency up as well as down (a device that got
 * slower would otherwise be polled too early for ever). Plain code: no clock of its own.
 */
public final class LatencyEstimate {
    private final int window;
    private long estimateNanos = -1;
    private long windowMin = Long.MAX_VALUE;
    private int windowSamples;

    /** An estimate over the last {@code window} samples. */
    public LatencyEstimate(int window) {
        if (window < 1) {
            throw new IllegalArgumentException("the window must hold at least one sample");
        }
        this.window = window;
    }

    /** One request of this kind took {@code nanos} from its submission to its completion. */
    public void sample(long nanos) {
        windowMin = Math.min(windowMin, nanos);
        if (++windowSamples >= window || estimateNanos < 0) {
            estimateNanos = windowMin;
            windowMin = Long.MAX_VALUE;
            windowSamples = 0;
        }
    }

    /** The estimate in nanoseconds, or -1 before the first sample. */
    public long nanos() {
        return estimateNanos;
    }
}
