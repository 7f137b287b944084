package dev.uringactors.ring.wait;

/**
 * What the owner of a ring knows about its requests in flight, for a strategy that polls: when polling for the
 * first of them to complete should start. Only requests with a predictable completion time count (file reads
 * and writes); a socket receive may wait for minutes, and a strategy must not spin for it.
 */
@FunctionalInterface
public interface CompletionForecast {
    /** No request in flight has a completion time to expect: block in the kernel rather than spin. */
    long NOTHING_EXPECTED = Long.MAX_VALUE;

    /** A forecast with nothing expected, for owners that time nothing. */
    CompletionForecast NONE = () -> NOTHING_EXPECTED;

    /**
     * The {@code System.nanoTime()} from which to poll: for the request expected to complete first, its
     * submission plus half its kind's estimated completion time (or its submission, before any estimate);
     * {@link #NOTHING_EXPECTED} when no such request is in flight.
     */
    long pollFromNanos();
}
