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

    private final List<ActorRef<ListenerCommand>> listeners;
    private final ActorRef<Event> ringUnbound;
    /** The one listening socket all rings accept on, or -1 when each ring's listener owns its own. */
    private int sharedFd;
    private ActorRef<Event> unbindReplyTo;
    private int ringsStillBound;

    private TcpListenerGroup(List<ActorRef<ListenerCommand>> listeners, ActorRef<Event> ringUnbound, int sharedFd) {
        this.listeners = listeners;
        this.ringUnbound = ringUnbound;
        this.sharedFd = sharedFd;
    }

    static Behavior<ListenerCommand> create(List<ActorRef<ListenerCommand>> listeners, int sharedFd) {
        return Behaviors.setup(ctx -> new TcpListenerGroup(listeners,
                ctx.messageAdapter(Event.class, e -> RingUnbound.INSTANCE), sharedFd).behavior());
    }

    private Behavior<ListenerCommand> behavior() {
        return Behaviors.receive(ListenerCommand.class)
                .onMessage(ResumeAccepting.class, r -> {
                    listeners.forEach(l -> l.tell(r));
                    return Behaviors.same();
                })
                .onMessage(Unbind.class, this::unbind)
                .onMessage(RingUnbound.class, r -> --ringsStillBound > 0 ? Behaviors.same() : unbound())
                .onSignal(PostStop.class, s -> { // stopped without an unbind: the system shutting down
                    closeSharedSocket();
                    return Behaviors.same();
                })
                .build();
    }

    private Behavior<ListenerCommand> unbind(Unbind u) {
        if (unbindReplyTo == null) {
            unbindReplyTo = u.replyTo();
            ringsStillBound = listeners.size();
            listeners.forEach(l -> l.tell(new Unbind(ringUnbound)));
        }
        return Behaviors.same();
    }

    private Behavior<ListenerCommand> unbound() {
        closeSharedSocket();
        unbindReplyTo.tell(TcpProtocol.Unbound.INSTANCE);
        return Behaviors.stopped();
    }

    private void closeSharedSocket() {
        if (sharedFd >= 0) {
            Sockets.close(sharedFd);
            sharedFd = -1;
        }
    }
}
