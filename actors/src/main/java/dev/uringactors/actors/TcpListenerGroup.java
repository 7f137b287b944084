package dev.uringactors.actors;

import dev.uringactors.actors.TcpProtocol.Event;
import dev.uringactors.actors.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.TcpProtocol.ResumeAccepting;
import dev.uringactors.actors.TcpProtocol.Unbind;
import dev.uringactors.ring.Sockets;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.util.List;

/**
 * What a bind handler sees as its listener: the per-ring listeners behind one ref. ResumeAccepting goes to each
 * ring; Unbind unbinds them all, closes a shared listening socket once none accepts on it, and answers once.
 */
final class TcpListenerGroup {
    sealed interface Internal extends ListenerCommand permits RingUnbound {
    }

    enum RingUnbound implements Internal { INSTANCE }

    private TcpListenerGroup() {
    }

    /** {@code sharedFd} is the one listening socket all rings accept on, or -1 when each owns its own. */
    static Behavior<ListenerCommand> create(List<ActorRef<ListenerCommand>> listeners, int sharedFd) {
        return Behaviors.setup(ctx -> {
            ActorRef<Event> unbound = ctx.messageAdapter(Event.class, e -> RingUnbound.INSTANCE);
            int[] waiting = {0};
            ActorRef<?>[] replyTo = {null};
            boolean[] socketClosed = {sharedFd < 0};
            return Behaviors.receive(ListenerCommand.class)
                    .onMessage(ResumeAccepting.class, r -> {
                        listeners.forEach(l -> l.tell(r));
                        return Behaviors.same();
                    })
                    .onMessage(Unbind.class, u -> {
                        if (replyTo[0] == null) {
                            replyTo[0] = u.replyTo();
                            waiting[0] = listeners.size();
                            listeners.forEach(l -> l.tell(new Unbind(unbound)));
                        }
                        return Behaviors.same();
                    })
                    .onMessage(RingUnbound.class, r -> {
                        if (--waiting[0] > 0) {
                            return Behaviors.same();
                        }
                        if (!socketClosed[0]) {
                            socketClosed[0] = true;
                            Sockets.close(sharedFd);
                        }
                        @SuppressWarnings("unchecked")
                        ActorRef<Event> requester = (ActorRef<Event>) replyTo[0];
                        requester.tell(TcpProtocol.Unbound.INSTANCE);
                        return Behaviors.stopped();
                    })
                    .onSignal(PostStop.class, s -> { // stopped without an unbind: the system shutting down
                        if (!socketClosed[0]) {
                            socketClosed[0] = true;
                            Sockets.close(sharedFd);
                        }
                        return Behaviors.same();
                    })
                    .build();
        });
    }
}
