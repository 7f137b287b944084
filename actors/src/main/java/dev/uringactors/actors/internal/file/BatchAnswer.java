package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.file.RingProtocol;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;

import java.util.Arrays;
import java.util.List;

/**
 * The one answer to a {@link RingProtocol.ReadBatch}: each read's result in its place, sent once all have come,
 * or the first failure, sent at once (the later answers are dropped). Used on the ring's thread only.
 */
final class BatchAnswer {
    private final ByteString[] results;
    private final ActorRef<StatusReply<List<ByteString>>> replyTo;
    private int missing;
    private boolean answered;

    BatchAnswer(int reads, ActorRef<StatusReply<List<ByteString>>> replyTo) {
        this.results = new ByteString[reads];
        this.missing = reads;
        this.replyTo = replyTo;
    }

    /** The answer of read {@code index}. */
    void answer(int index, StatusReply<ByteString> reply) {
        if (answered) {
            return;
        }
        if (reply.isError()) {
            answered = true;
            replyTo.tell(StatusReply.error(reply.getError()));
        } else {
            results[index] = reply.getValue();
            if (--missing == 0) {
                answered = true;
                replyTo.tell(StatusReply.success(Arrays.asList(results)));
            }
        }
    }
}
