package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sqe;

/**
 * One request on a ring: how to prepare its SQE, what each of its completions means (a multishot request has
 * many), and the native memory it owns, which is released only after its final completion because until then
 * the kernel may still write into it. Every method runs on the ring's thread.
 */
public abstract class RingOp {
    /** Fills an SQE for one op: the part that differs between otherwise identical small ops. */
    @FunctionalInterface
    public interface Prep {
        void prepare(Sqe sqe);
    }

    /** The slot the issuer keeps this op in while it is queued or in flight. */
    long userData;

    /** When a timed op was put in the SQ ({@link DueCompletions}); -1 when it is not in flight. */
    long submittedAt = -1;

    /** The user_data the op was given, which a cancel names. */
    public long userData() {
        return userData;
    }

    protected abstract Opcode opcode();

    /** Fills the SQE (the issuer sets user_data). Must not throw once the arguments were checked. */
    protected abstract void prepare(Sqe sqe);

    /**
     * The kind of request whose completion time a polling wait strategy may expect (an {@link Opcode} ordinal),
     * or -1 for ops that complete when something happens outside (a socket receive, a timeout).
     */
    protected int latencyKind() {
        return -1;
    }

    /** Whether the op goes to the IOPOLL companion ring. */
    protected boolean polled() {
        return false;
    }

    /**
     * Handles one completion; returns false when the op must be submitted again (a short write). Ops that
     * answer someone do it here.
     */
    protected abstract boolean complete(int res, int flags, int ringFlags);

    /** The ring failed or shuts down: answer now; the memory stays until the final completion. */
    protected abstract void fail(Throwable cause);

    /**
     * The op will never reach the kernel: the ring is shut down or failed before it was submitted. Answers with
     * {@code cause}; an op whose effect must happen all the same (a close) does it here, without the ring.
     */
    protected void refuse(Throwable cause) {
        fail(cause);
    }

    /**
     * A completion that arrives while the ring drains (after a fault, or at shutdown), when the op has already
     * been answered with a failure: an op whose result is a new fd closes it, since nobody will ever hear of it.
     */
    protected void drained(int res) {
    }

    /** Frees native memory; called once, after the final completion. */
    protected void release() {
    }
}
