package dev.uringactors.actors.internal.tcp.pekko;

import dev.uringactors.actors.tcp.ListenerStats;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.AbstractActorWithTimers;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.SupervisorStrategy;
import org.apache.pekko.actor.Terminated;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.event.Logging;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * A bind under the JDK backend: Pekko IO's listener behind this library's listener protocol. It binds through
 * Pekko's Tcp manager, tells the bind's handler {@link TcpProtocol.Bound} with itself as the listener, and makes a
 * connection ({@link PekkoSocket}, its child) for each one Pekko accepts. After an unbind it stays until its
 * connections have closed, as they are its children.
 *
 * <p>Pekko's listener retries an accept that failed at once, logging each failure (out of file descriptors, a hot
 * loop of stack traces until one frees). So it is let accept only as many connections as the process has
 * descriptors for, counted just before ({@link FreeDescriptors}); with none, this one pauses
 * {@code uring.tcp.accept-backoff}, one WARN per pause, as a ring's listener does after EMFILE.
 */
final class PekkoListener extends AbstractActorWithTimers {
    /** Connections Pekko's listener may accept before it hears from this one again: its own default batch. */
    private static final int ACCEPT_BATCH = 10;
    private static final Object RETRY = "retry";
    private final Bind bind;
    private final UringSettings.Tcp tcp;
    /** The next ring index in turn, for each connection's {@code Connected}. */
    private final IntSupplier nextRing;
    private final int maxIoSize;
    private final LoggingAdapter log = Logging.getLogger(getContext().getSystem(), this);
    private final List<org.apache.pekko.actor.typed.ActorRef<Event>> unbindReplies = new ArrayList<>();
    private ActorRef pekkoListener;
    private long accepted;
    private long pauses;
    /** Connections the bind's handler allowed (pull mode) that Pekko's listener has not been let accept yet. */
    private long wanted;
    /** Connections Pekko's listener may accept before it hears from this one again. */
    private int allowed;
    private boolean paused;
    private boolean unbound;
    /** The bind's handler has heard Bound or CommandFailed. */
    private boolean told;

    private PekkoListener(Bind bind, UringSettings.Tcp tcp, IntSupplier nextRing, int maxIoSize) {
        this.bind = bind;
        this.tcp = tcp;
        this.nextRing = nextRing;
        this.maxIoSize = maxIoSize;
    }

    static Props props(Bind bind, UringSettings.Tcp tcp, IntSupplier nextRing, int maxIoSize) {
        return Props.create(PekkoListener.class, () -> new PekkoListener(bind, tcp, nextRing, maxIoSize));
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
        // Pull mode, whatever the bind's, for its connections' reads (PekkoSocket); its accepts follow the
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
                    allowMore();
                    bind.handler().tell(new TcpProtocol.Bound(b.localAddress(), Adapter.toTyped(getSelf())));
                })
                .match(Tcp.CommandFailed.class, f -> {
                    told = true;
                    bind.handler().tell(new TcpProtocol.CommandFailed(bind, PekkoOptions.causeOf(f, "bind " + bind.localAddress())));
                    getContext().stop(getSelf());
                })
                .match(Tcp.Connected.class, c -> {
                    accepted++;
                    getContext().watch(Adapter.toClassic(Adapter.spawnAnonymous(getContext(),
                            PekkoSocket.accepted(bind.handler(), getSender(), c, nextRing.getAsInt(), tcp,
                                    maxIoSize))));
                    allowed--;
                    allowMore();
                })
                .match(TcpProtocol.ResumeAccepting.class, r -> {
                    wanted += r.batchSize();
                    allowMore();
                })
                .matchEquals(RETRY, r -> {
                    paused = false;
                    allowMore();
                })
                .match(TcpProtocol.Unbind.class, this::unbind)
                .matchEquals(Tcp.Unbound$.MODULE$, u -> {
                    unbound = true;
                    unbindReplies.forEach(r -> r.tell(TcpProtocol.Unbound.INSTANCE));
                    unbindReplies.clear();
                    stopWhenDone();
                })
                .match(TcpProtocol.GetListenerStats.class,
                        g -> g.replyTo().tell(new ListenerStats(accepted, 0, 0, pauses, 0, 0)))
                .match(Terminated.class, t -> stopWhenDone())
                .build();
    }

    /**
     * Once Pekko's listener has accepted what it was let, it is let accept a batch more (in pull mode, no more than
     * the handler asked for), as many as there are free descriptors; with none, a pause. Not once an unbind is under
     * way.
     */
    private void allowMore() {
        long want = bind.pullMode() ? wanted : ACCEPT_BATCH;
        if (pekkoListener == null || allowed > 0 || paused || want == 0 || unbound || !unbindReplies.isEmpty()) {
            return;
        }
        FreeDescriptors free = FreeDescriptors.upTo((int) Math.min(want, ACCEPT_BATCH));
        if (free.count() == 0) {
            paused = true;
            pauses++;
            log.warning("accepting on {} paused: {} (no file descriptor left); accepting again in {}",
                    bind.localAddress(), free.failure(), tcp.acceptBackoff());
            getTimers().startSingleTimer(RETRY, RETRY, tcp.acceptBackoff());
            return;
        }
        allowed = free.count();
        if (bind.pullMode()) {
            wanted -= allowed;
        }
        pekkoListener.tell(TcpMessage.resumeAccepting(allowed), getSelf());
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
