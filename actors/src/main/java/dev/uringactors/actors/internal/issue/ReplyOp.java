package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import scala.util.control.NonFatal;

/**
 * A single-shot request that answers its {@code replyTo} exactly once: with the result, with the typed failure
 * of a negative completion, or with a failure when the ring fails or shuts down.
 */
public abstract class ReplyOp<T> extends RingOp {
    private final ActorRef<StatusReply<T>> replyTo;

    /** {@code replyTo} gets the answer; null for an op that overrides {@link #answer}. */
    public ReplyOp(ActorRef<StatusReply<T>> replyTo) {
        this.replyTo = replyTo;
    }

    /** Gives the one answer, on the ring's thread: a message to {@code replyTo} unless overridden. */
    protected void answer(StatusReply<T> reply) {
        replyTo.tell(reply);
    }

    /** The answer for a non-negative result; what it throws is the answer instead. */
    protected abstract T result(int res);

    /** What the op works on, for error messages: a path, a file. */
    protected String target() {
        return null;
    }

    /** Whether a non-negative result finishes the op; false asks the issuer to prepare it again (short write). */
    protected boolean done(int res) {
        return true;
    }

    @Override
    protected final boolean complete(int res, int flags, int ringFlags) {
        if (res >= 0 && !done(res)) {
            return false;
        }
        if (!answered()) {
            answer(res < 0 ? StatusReply.error(UringException.ofResult(opcode(), res, target(), ringFlags))
                    : success(res));
            markAnswered();
        }
        return true;
    }

    private StatusReply<T> success(int res) {
        try {
            return StatusReply.success(result(res));
        } catch (RuntimeException | Error e) { // a reader of the caller's (ReadWith) that failed, say, or asserted
            if (!NonFatal.apply(e)) {
                throw e; // the JVM's own trouble (out of memory, a class that cannot load): not the request's
            }
            return StatusReply.error(e);
        }
    }

    @Override
    protected final void fail(Throwable cause) {
        answer(StatusReply.error(cause));
    }
}
