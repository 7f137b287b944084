package dev.uringactors.bench;

import dev.uringactors.actors.file.RingProtocol;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;

import java.util.function.Function;

/**
 * Keeps {@code depth} requests in flight against a ring's file actor and counts the answers. Spawned on the ring's own
 * dispatcher, so a completion, this actor's reaction and the next request stay on the ring thread.
 */
final class LoadActor {
    private LoadActor() {
    }

    static <T> Behavior<StatusReply<T>> create(ActorRef<RingProtocol.Command> ring,
                                               Function<ActorRef<StatusReply<T>>, RingProtocol.Command> request,
                                               int depth, Tally tally) {
        return create(ring, request, depth, tally, 1);
    }

    /** As above, each request carrying {@code operations} operations (a batch) answered together. */
    static <T> Behavior<StatusReply<T>> create(ActorRef<RingProtocol.Command> ring,
                                               Function<ActorRef<StatusReply<T>>, RingProtocol.Command> request,
                                               int depth, Tally tally, int operations) {
        return Behaviors.setup(ctx -> {
            for (int i = 0; i < depth; i++) {
                ring.tell(request.apply(ctx.getSelf()));
            }
            return Behaviors.receiveMessage(reply -> {
                if (reply.isError()) {
                    tally.failure(reply.getError());
                } else {
                    tally.success(operations);
                }
                ring.tell(request.apply(ctx.getSelf()));
                return Behaviors.same();
            });
        });
    }
}
