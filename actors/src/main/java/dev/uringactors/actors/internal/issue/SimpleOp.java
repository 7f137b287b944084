package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sqe;

/**
 * An op that is only its opcode, a lambda that fills its SQE, and where its result goes, once: NOP, FSYNC, CLOSE,
 * SHUTDOWN, ASYNC_CANCEL. It points the kernel at no memory of its own.
 */
public class SimpleOp extends RingOp {
    /** Where a simple op's outcome goes: one of the two is called, once; {@code failed} also after a throw. */
    public interface Outcome {
        /** Nobody waits for the outcome (a cancel, a shutdown whose effect shows on the socket). */
        Outcome IGNORED = new Outcome() {
            @Override
            public void completed(int res, int ringFlags) {
            }

            @Override
            public void failed(Throwable cause) {
            }
        };

        /** The kernel's result; {@code ringFlags} are the setup flags of the ring it ran on, for an error's hint. */
        void completed(int res, int ringFlags);

        /** The ring failed or shut down under the op, or its completion could not be handled. */
        void failed(Throwable cause);
    }

    private final Opcode opcode;
    private final Admission admission;
    private final Prep prep;
    private final Outcome outcome;

    public SimpleOp(Opcode opcode, Admission admission, Prep prep, Outcome outcome) {
        this.opcode = opcode;
        this.admission = admission;
        this.prep = prep;
        this.outcome = outcome;
    }

    /**
     * ASYNC_CANCEL of the request with {@code userData}; nobody waits for its result: the cancelled request's own
     * final completion says what happened. Exempt from admission, as its owner bounds it.
     */
    public static SimpleOp cancel(long userData) {
        return new SimpleOp(Opcode.ASYNC_CANCEL, Admission.EXEMPT, sqe -> sqe.prepCancel(userData, 0),
                Outcome.IGNORED);
    }

    @Override
    protected Opcode opcode() {
        return opcode;
    }

    @Override
    protected Admission admission() {
        return admission;
    }

    @Override
    protected void prepare(Sqe sqe) {
        prep.prepare(sqe);
    }

    /** An outcome that throws has not answered (telling is its last act): the issuer then fails the op with it. */
    @Override
    protected boolean complete(int res, int flags, int ringFlags) {
        if (!answered()) {
            outcome.completed(res, ringFlags);
            markAnswered();
        }
        return true;
    }

    @Override
    protected void fail(Throwable cause) {
        outcome.failed(cause);
    }

    /** Where the result goes: for an op that answers without the ring. */
    protected final Outcome outcome() {
        return outcome;
    }
}
