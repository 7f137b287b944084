package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.SqeFlags;

/**
 * One request on a ring: how to prepare its SQE, what each of its completions means (a multishot request has
 * many), and whom it answers, exactly once. Every method runs on the ring's thread. What the issuer keeps for an
 * op (the native memory lent to it, when it went in, whether its completion failed) is in the op's slot, which
 * the op knows by its user_data.
 *
 * <p>An op is lent its native memory in {@link #acquire}, when the issuer lets it into the kernel, not when it is
 * built: a request that waits holds only heap. The issuer gives the memory back after the op's final completion,
 * because until then the kernel may still write into it.
 */
public abstract class RingOp {
    /** How {@code uring.admission} treats an op. */
    public enum Admission {
        /** What a connection or listener issues for itself, bounded by its owner: let in at once, never refused. */
        EXEMPT,
        /** A caller's request: counted; waits for room in the kernel, refused when too many wait already. */
        REQUEST,
        /**
         * Counted and waits in order like a request, but is never refused: a file's CLOSE must follow the reads
         * queued before it, and must happen.
         */
        REQUEST_NEVER_REFUSED
    }

    /** Fills an SQE for one op: the part that differs between otherwise identical small ops. */
    @FunctionalInterface
    public interface Prep {
        void prepare(Sqe sqe);
    }

    /** The slot the issuer keeps this op in while it is queued or in flight. */
    long userData;
    /** The SQEs of the op's submission in flight: its chain's length when it was written. */
    int stepsInFlight;
    /** Whether the completion being handled is the last its submission brings. */
    boolean lastOfSubmission;

    private boolean answered;

    /** The user_data the op was given, which a cancel names. */
    public long userData() {
        return userData;
    }

    /** Whether the op has given its one answer: the ops' single way of answering once. */
    protected final boolean answered() {
        return answered;
    }

    /** The op has given its one answer; called after giving it, so that an answer that throws is not one. */
    protected final void markAnswered() {
        answered = true;
    }

    /**
     * Makes an op whose final completion has come ready to be issued again, to be answered anew: for an owner that
     * keeps one op and reuses it (a connection's plain send). The issuer refuses an op that is still in flight.
     */
    protected final void renew() {
        answered = false;
    }

    /** The ring failed or shut down under the op, or its completion threw: answers with {@code cause}, if unanswered. */
    final void failUnanswered(Throwable cause) {
        if (!answered) {
            answered = true;
            fail(cause);
        }
    }

    /** The op will never reach the kernel: answers with {@code cause}, or does what must happen without it. */
    final void refuseUnanswered(Throwable cause) {
        if (!answered) {
            answered = true;
            refuse(cause);
        }
    }

    protected abstract Opcode opcode();

    /** How the admission limit treats this op; exempt unless the op says otherwise. */
    protected Admission admission() {
        return Admission.EXEMPT;
    }

    /**
     * Takes the native memory the op needs from {@code pool} and fills it, as the op enters the kernel; called
     * once, before the first {@link #prepare}. The issuer keeps the lease and gives it back after the final
     * completion; null for an op that points the kernel at nothing. It must not throw once it has taken a lease.
     */
    protected BufferLease acquire(BufferPool pool) {
        return null;
    }

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

    /**
     * The ring failed or shuts down, or a completion threw: answer now (the issuer calls it only while the op is
     * unanswered); the memory stays until the final completion.
     */
    protected abstract void fail(Throwable cause);

    // ---- a chain: an op whose submission is several SQEs that the kernel runs in order

    /**
     * How many SQEs the op's next submission writes: 1, or for a chain the steps the kernel is to run one after
     * another without a round trip in between, at most 64. The issuer writes them together (never split by a
     * flush or by the end of the SQ), counts them as one request, and ends the submission at the completion of
     * its last step, which comes after every other step's: a step that fails (a short read or write fails too)
     * cancels the steps linked behind it, and each of them completes with -ECANCELED.
     */
    protected int chainLength() {
        return 1;
    }

    /** Fills the SQE of step {@code step} of the chain (the issuer sets user_data and the link to the next). */
    protected void prepare(Sqe sqe, int step) {
        prepare(sqe);
    }

    /**
     * The {@link SqeFlags} step {@code step} (not the last) hands on to the next with: IO_LINK, the next runs
     * only if this one succeeds; or IO_HARDLINK, it runs whatever this one's result. Either with CQE_SKIP_SUCCESS
     * when this step's success needs no completion: its failure still posts one, and with IO_LINK that is the
     * chain's last, as the steps behind it are cancelled without one.
     */
    protected int link(int step) {
        return SqeFlags.IO_LINK;
    }

    /**
     * Handles the completion of step {@code step} of the chain; what the last completion's returns counts as
     * {@link #complete(int, int, int)}'s (false: submit again). The op answers at the latest at the last
     * completion ({@link #endsSubmission()}): its last step's, or that of a step that skips its success and failed.
     */
    protected boolean complete(int step, int res, int flags, int ringFlags) {
        return complete(res, flags, ringFlags);
    }

    /** Whether the completion being handled is the last of the op's submission: nothing of it is in flight after. */
    protected final boolean endsSubmission() {
        return lastOfSubmission;
    }

    /** {@link #drained(int, int)} for step {@code step} of a chain. */
    protected void drained(int step, int res, int flags) {
        drained(res, flags);
    }

    /**
     * The op will never reach the kernel: the ring is shut down or failed before it was submitted. Answers with
     * {@code cause}; an op whose effect must happen all the same (a close) does it here, without the ring.
     */
    protected void refuse(Throwable cause) {
        fail(cause);
    }

    /**
     * A completion that arrives when the op has already been answered with a failure: while the ring drains (after
     * a fault, or at shutdown), or after a completion of it threw. An op whose result is a new fd closes it, since
     * nobody will ever hear of it, and one that took a provided buffer gives it back.
     */
    protected void drained(int res, int flags) {
    }
}
