package dev.uringactors.actors;

import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;

/**
 * One request on a ring: how to prepare its SQE, what its completion means, and the native memory it owns.
 * It answers its {@code replyTo} exactly once: with a result, with the typed failure of a negative completion,
 * or with a failure when the ring fails or shuts down. Its memory is released only after its final completion,
 * because until then the kernel may still write into it.
 */
abstract class RingOp<T> {
    private final ActorRef<StatusReply<T>> replyTo;
    private boolean answered;
    /** The slot the issuer keeps this op in while it is queued or in flight. */
    long userData;

    RingOp(ActorRef<StatusReply<T>> replyTo) {
        this.replyTo = replyTo;
    }

    abstract Opcode opcode();

    /** Fills the SQE (the issuer sets user_data). Must not throw once the arguments were checked. */
    abstract void prepare(Sqe sqe);

    /** The answer for a non-negative result. */
    abstract T result(int res);

    /** What the op works on, for error messages: a path, a file. */
    String target() {
        return null;
    }

    /** Whether the op goes to the IOPOLL companion ring. */
    boolean polled() {
        return false;
    }

    /** Whether a non-negative result finishes the op; false asks the issuer to prepare it again (short write). */
    boolean done(int res) {
        return true;
    }

    /** Frees native memory; called once, after the final completion. */
    void release() {
    }

    /** Handles a completion; returns false when the op must be submitted again. */
    final boolean complete(int res, int ringFlags) {
        if (res >= 0 && !done(res)) {
            return false;
        }
        if (!answered) {
            answered = true;
            replyTo.tell(res < 0
                    ? StatusReply.error(UringException.ofResult(opcode(), res, target(), ringFlags))
                    : StatusReply.success(result(res)));
        }
        return true;
    }

    /** Answers with a failure now; the op may still be in the kernel, so its memory stays until it completes. */
    final void fail(Throwable cause) {
        if (!answered) {
            answered = true;
            replyTo.tell(StatusReply.error(cause));
        }
    }
}
