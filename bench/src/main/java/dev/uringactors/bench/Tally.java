package dev.uringactors.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Answers counted by a load: successes, failures, and the first failure, for the report. */
final class Tally {
    private final LongAdder completed = new LongAdder();
    private final AtomicLong failed = new AtomicLong();
    private volatile Throwable firstFailure;

    /** Called by load actors, one per ring thread. */
    void success() {
        completed.increment();
    }

    /** {@code n} operations answered together (a batch). */
    void success(int n) {
        completed.add(n);
    }

    void failure(Throwable e) {
        if (failed.getAndIncrement() == 0) {
            firstFailure = e;
        }
    }

    long completed() {
        return completed.sum();
    }

    /** Fails the run if any request failed so far (call it before shutting the system down). */
    void checkNoFailures() {
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " requests failed; the first: " + firstFailure,
                    firstFailure);
        }
    }
}
