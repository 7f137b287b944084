package dev.uringactors.actors.internal.tcp.pekko;

import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.actors.tcp.ListenerStats;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.SupervisorStrategy;
import org.apache.pekko.actor.Terminated;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * A bind under the JDK backend: Pekko IO's listener behind this library's listener protocol. It binds through
 * Pekko's Tcp manager, tells the bind's handler {@link TcpProtocol.Bound} with itself as the listener, and makes a
 * {@link PekkoConnection} (its child) for each connection Pekko accepts. After an unbind it stays until its
 * connections have closed, as they are its children.
 */
final class PekkoListener extends AbstractActor {
    /** Connections Pekko's listener may accept before it hears from this one again: its own default batch. */
    private static final int ACCEPT_BATCH = 10;
    private final Bind bind;
    private final UringSettings.Tcp tcp;
    private final Rings rings;
    private final List<org.apache.pekko.actor.typed.ActorRef<Event>> unbindReplies = new ArrayList<>();
    private ActorRef pekkoListener;
    private long accepted;
    private boolean unbound;
    /** The bind's handler has heard Bound or CommandFailed. */
    private boolean told;

    private PekkoListener(Bind bind, UringSettings.Tcp tcp, Rings rings) {
        this.bind = bind;
        this.tcp = tcp;
        this.rings = rings;
    }

    static Props props(Bind bind, UringSettings.Tcp tcp, Rings rings) {
        return Props.create(PekkoListener.class, () -> new PekkoListener(bind, tcp, rings));
    }

    @Override
    public void preStart() {
        if (bind.localAddress().isUnresolved()) { // as on a ring: no name lookup here
            told = true;
            bind.handler().tell(new TcpProtocol.CommandFailed(bind, PekkoOptions.unresolved(bind.localAddress())));
            getContext().stop(getSelf());
            return;
        }
        int backlog = tcp.backlogOr(bind.backlog());
        // Pull mode, whatever the bind's, for its connections' reads (PekkoConnection); its accepts follow the
        // bind's: asked for by the handler in pull mode, else after each connection.
        Tcp.get(getContext().getSystem()).manager().tell(TcpMessage.bind(getSelf(), bind.localAddress(), backlog,
                PekkoOptions.of(tcp, bind.options().socketOptions()), true), getSelf());
    }

    /** A connection that fails stops, telling its handler: a restart would announce it a second time. */
    @Override
    public SupervisorStrategy supervisorStrategy() {
        return SupervisorStrategy.stoppingStrategy();
    }

    /** Stopped by a failure (its parent never restarts it: it would bind again): whoever waits hears of it. */
    @Override
    public void postStop() {
        if (!told) {
            bind.handler().tell(new TcpProtocol.CommandFailed(bind, new IllegalStateException("the listener stopped")));
        }
        unbindReplies.forEach(r -> r.tell(TcpProtocol.Unbound.INSTANCE));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Tcp.Bound.class, b -> {
                    told = true;
                    pekkoListener = getSender();
                    acceptOnUnlessPulled();
                    bind.handler().tell(new TcpProtocol.Bound(b.localAddress(), Adapter.toTyped(getSelf())));
                })
                .match(Tcp.CommandFailed.class, f -> {
                    told = true;
                    bind.handler().tell(new TcpProtocol.CommandFailed(bind, PekkoOptions.causeOf(f, "bind " + bind.localAddress())));
                    getContext().stop(getSelf());
                })
                .match(Tcp.Connected.class, c -> {
                    accepted++;
                    getContext().watch(getContext().actorOf(PekkoConnection.accepted(bind.handler(), getSender(), c,
                            rings.nextRing(), tcp, rings.settings().maxIoSize())));
                    acceptOnUnlessPulled();
                })
                .match(TcpProtocol.ResumeAccepting.class,
                        r -> pekkoListener.tell(TcpMessage.resumeAccepting(r.batchSize()), getSelf()))
                .match(TcpProtocol.Unbind.class, this::unbind)
                .matchEquals(Tcp.Unbound$.MODULE$, u -> {
                    unbound = true;
                    unbindReplies.forEach(r -> r.tell(TcpProtocol.Unbound.INSTANCE));
                    unbindReplies.clear();
                    stopWhenDone();
                })
                .match(TcpProtocol.GetListenerStats.class,
                        g -> g.replyTo().tell(new ListenerStats(accepted, 0, 0, 0, 0, 0)))
                .match(Terminated.class, t -> stopWhenDone())
                .build();
    }

    /** A bind not in pull mode accepts whenever a connection comes: Pekko's listener is let accept a batch more. */
    private void acceptOnUnlessPulled() {
        if (!bind.pullMode() && !unbound && unbindReplies.isEmpty()) { // not once an unbind is under way
            pekkoListener.tell(TcpMessage.resumeAccepting(ACCEPT_BATCH), getSelf());
        }
    }

    private void unbind(TcpProtocol.Unbind u) {
        if (unbound) {
            u.replyTo().tell(TcpProtocol.Unbound.INSTANCE);
            return;
        }
        if (unbindReplies.isEmpty()) {
            pekkoListener.tell(TcpMessage.unbind(), getSelf());
        }
        unbindReplies.add(u.replyTo());
    }

    private void stopWhenDone() {
        if (unbound && !getContext().getChildren().iterator().hasNext()) {
            getContext().stop(getSelf());
        }
    }
}
