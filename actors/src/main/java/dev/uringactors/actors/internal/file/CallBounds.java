package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.RingOverloadedException;
import dev.uringactors.config.UringSettings;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * How many file calls each ring has taken and not yet answered, bounded by what its admission takes
 * ({@code uring.admission}: max-in-flight plus max-waiting). A call past the bound is refused at once, before it
 * is queued anywhere: a ring's admission refuses what reaches it, but a file actor's mailbox and the JDK
 * backend's dispatcher queue stand in front of it, and neither has a bound of its own.
 */
public final class CallBounds {
    private final AtomicIntegerArray unanswered;
    private final int limit;

    public CallBounds(int rings, UringSettings.Admission admission) {
        this.unanswered = new AtomicIntegerArray(rings);
        this.limit = (int) Math.min(Integer.MAX_VALUE, (long) admission.maxInFlight() + admission.maxWaiting());
    }

    /** Takes a call for ring {@code ring}, or null: the refusal to answer it with. Each take is released once. */
    public RingOverloadedException take(int ring) {
        if (unanswered.incrementAndGet(ring) <= limit) {
            return null;
        }
        unanswered.decrementAndGet(ring);
        return RingOverloadedException.unanswered(ring, limit);
    }

    /** A call taken for ring {@code ring} is answered. */
    public void release(int ring) {
        unanswered.decrementAndGet(ring);
    }
}
