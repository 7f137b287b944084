package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.issue.SimpleOp;
import dev.uringactors.actors.internal.loop.RingEvent;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.ResumeAccepting;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

import java.net.InetSocketAddress;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Accepts on one ring, on a listening socket its {@link TcpListenerGroup} owns: one multishot ACCEPT in flight,
 * re-armed when a CQE comes without F_MORE, after a back-off when the process is out of file descriptors;
 * single-shot ACCEPTs, one after another, where the kernel rejects multishot (before 5.19) or
 * {@code uring.tcp.accept = single} asks for them. Each connection becomes a connection ({@link RingSocket}) child on the
 * ring {@link ConnectionSpread} chooses (spawned from here, it runs on that ring's thread alone). In pull mode it
 * accepts only what {@link ResumeAccepting} allowed: with no credit left it cancels the accept and the kernel's
 * backlog holds new connections. An accept that fails in a way it does not expect fails
 * this actor, which its group restarts with back-off: the socket, its backlog, the connections (its children) and
 * its {@link AcceptState} stay. Its phases are behaviours: listening; unbinding (after {@link Unbind}, until the
 * cancelled accept has ended: fds that still arrive for it are closed); and draining (unbound, or its ring closed
 * for good), when it lives on without listening until its connections, its children, have closed.
 */
public final class TcpListener {
    sealed interface Internal extends ListenerCommand permits Accepted, AcceptEnded, Rearm, NotHandedOut,
            RingClosed {
    }

    record Accepted(int fd) implements Internal {
    }

    /** The accept ended with {@code res}; or it had none, its ring having closed under it (RingClosed follows). */
    record AcceptEnded(TcpOps.Accept op, int res, boolean ringClosed) implements Internal {
    }

    enum Rearm implements Internal { INSTANCE }

    /** A connection failed in its setup, before its handler heard of it: the credit it spent comes back. */
    enum NotHandedOut implements Internal { INSTANCE }

    /** The ring closed for good: the listener stops, and its group closes the socket no ring accepts on. */
    enum RingClosed implements Internal { INSTANCE }

    /** An accept ended with an errno that says the listening socket is not what it was. */
    static final class AcceptFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AcceptFailedException(String message) {
            super(message);
        }
    }

    private final ActorContext<ListenerCommand> ctx;
    private final TimerScheduler<ListenerCommand> timers;
    private final RingLoop loop;
    private final ConnectionSpread spread;
    private final UringSettings.Tcp tcp;
    private final int listenFd;
    private final ActorRef<Event> handler;
    private final boolean pullMode;
    private final AcceptState state;
    /** What each connection's behaviour is wrapped in as it is spawned. */
    private final UnaryOperator<Behavior<Object>> wrapConnection;
    /** The connections' local address when the listener's is a specific one; null for a wildcard. */
    private final InetSocketAddress localAddress;
    private TcpOps.Accept accept;
    /** Hears of the ring's end; one per incarnation. */
    private final Consumer<RingEvent> ringEvents;

    private TcpListener(ActorContext<ListenerCommand> ctx, TimerScheduler<ListenerCommand> timers, RingLoop loop,
                        ConnectionSpread spread, UringSettings.Tcp tcp, int listenFd, ActorRef<Event> handler,
                        boolean pullMode, AcceptState state, UnaryOperator<Behavior<Object>> wrapConnection) {
        this.ctx = ctx;
        this.timers = timers;
        this.loop = loop;
        this.spread = spread;
        this.tcp = tcp;
        this.listenFd = listenFd;
        this.handler = handler;
        this.pullMode = pullMode;
        this.state = state;
        this.wrapConnection = wrapConnection;
        InetSocketAddress bound = Sockets.localAddress(listenFd);
        this.localAddress = bound.getAddress().isAnyLocalAddress() ? null : bound;
        ActorRef<ListenerCommand> self = ctx.getSelf();
        this.ringEvents = RingEvent.whenClosed(closed -> self.tell(RingClosed.INSTANCE));
    }

    /**
     * Accepts on {@code listenFd}, placing each connection on the ring {@code spread} chooses, its behaviour
     * wrapped in {@code wrapConnection}; {@code state} outlives each incarnation (create it once per ring).
     */
    static Behavior<ListenerCommand> create(RingLoop loop, ConnectionSpread spread, UringSettings.Tcp tcp,
                                            int listenFd, ActorRef<Event> handler, boolean pullMode,
                                            AcceptState state, UnaryOperator<Behavior<Object>> wrapConnection) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            if (state.starts++ > 0) {
                state.restarts.increment();
            }
            TcpListener l = new TcpListener(ctx, timers, loop, spread, tcp, listenFd, handler, pullMode, state,
                    wrapConnection);
            // Children survive a restart: watch them again, or their ends would not be seen.
            ctx.getChildren().forEach(ctx::watch);
            if (!loop.issuer().isOpen()) {
                // Restarted after its ring closed for good, whose RingClosed no incarnation heard: its connections
                // on other rings live on, and it waits for them.
                l.endWithRing();
                return l.draining();
            }
            loop.subscribe(l.ringEvents);
            l.arm();
            return l.listening();
        }));
    }

    private boolean wantsMore() {
        return !pullMode || state.credit > 0;
    }

    /** While listening: an accept in flight, unless one is or no connection is wanted now. */
    private void arm() {
        if (accept == null && wantsMore()) {
            accept = new TcpOps.Accept(listenFd, state.multishot, ctx.getSelf());
            loop.issuer().issue(accept);
        }
    }

    private void rearm() {
        state.rearms.increment();
        arm();
    }

    private void cancelAccept() {
        loop.issuer().issue(SimpleOp.cancel(accept.userData()));
    }

    private Behavior<ListenerCommand> listening() {
        return Behaviors.receive(ListenerCommand.class)
                .onMessage(Accepted.class, this::accepted)
                .onMessage(AcceptEnded.class, this::acceptEnded)
                .onMessage(Rearm.class, r -> {
                    rearm();
                    return Behaviors.same();
                })
                .onMessage(ResumeAccepting.class, r -> resume(r.batchSize()))
                .onMessageEquals(NotHandedOut.INSTANCE, () -> resume(1))
                .onMessage(Unbind.class, this::unbind)
                .onMessageEquals(RingClosed.INSTANCE, this::ringClosed)
                .onSignal(Terminated.class, t -> {
                    connectionEnded(t);
                    return Behaviors.same();
                })
                .onSignal(PreRestart.class, s -> {
                    loop.unsubscribe(ringEvents);
                    return endAccept();
                })
                .onSignal(PostStop.class, s -> stoppedWithAcceptInFlight())
                .build();
    }

    /**
     * Before a restart: the accept in flight is cancelled. Connections it still brings come to the next
     * incarnation (the same actor), which takes them as its own; its end is then ignored.
     */
    private Behavior<ListenerCommand> endAccept() {
        if (accept != null) {
            cancelAccept();
        }
        return Behaviors.same();
    }

    private Behavior<ListenerCommand> accepted(Accepted a) {
        if (wantsMore()) {
            if (connection(a.fd())) {
                state.credit--;
            }
            if (!wantsMore() && accept != null) {
                cancelAccept(); // pull mode, credit used up: leave the rest in the kernel backlog
            }
        } else {
            state.held.add(a.fd()); // accepted by the kernel before the cancellation took effect
        }
        return Behaviors.same();
    }

    /**
     * A connection for an accepted fd, unless its peer has reset it already (while it waited in the backlog):
     * that one is closed at once and spends no credit, so that a pull-mode consumer still gets the next one.
     */
    private boolean connection(int fd) {
        InetSocketAddress remote;
        InetSocketAddress local;
        try {
            remote = Sockets.remoteAddress(fd); // ENOTCONN for a peer that has reset
            local = localAddress != null ? localAddress : Sockets.localAddress(fd);
        } catch (UringException e) {
            Descriptors.close(fd);
            state.resetBeforeAccepted.increment();
            return false;
        }
        state.accepted.increment();
        ConnectionSpread.Placement placement = spread.place(loop.index());
        int ring = placement.ring();
        ActorRef<?> connection = ctx.spawnAnonymous(wrapConnection.apply(RingSocket.accepted(
                spread.rings().loop(ring), tcp, fd, handler, remote, local, ctx.getSelf(), placement::release)),
                spread.rings().dispatcher(ring));
        ctx.watch(connection);
        state.placed.put(connection, placement);
        return true;
    }

    private void connectionEnded(Terminated t) {
        ConnectionSpread.Placement placement = state.placed.remove(t.getRef());
        if (placement != null) {
            placement.release();
        }
    }

    /** The accept ended with the ring; its connections on other rings go on, and the listener waits for them. */
    private Behavior<ListenerCommand> ringClosed() {
        endWithRing();
        return draining();
    }

    private void endWithRing() {
        spread.ringClosed(loop.index());
        accept = null;
        closeHeld();
    }

    private Behavior<ListenerCommand> acceptEnded(AcceptEnded ended) {
        if (ended.op() != accept) {
            return Behaviors.same(); // the accept of an incarnation before a restart
        }
        accept = null;
        int res = ended.res();
        if (ended.ringClosed()) {
            if (loop.issuer().isOpen()) { // opened anew after a fault: accept on it; else RingClosed comes next
                rearm();
            }
        } else if (res == -Errno.EINVAL && ended.op().multishot()) {
            ctx.getLog().info("multishot accept rejected by this kernel (needs 5.19): accepting one at a time");
            state.multishot = false;
            arm();
        } else if (res == -Errno.EMFILE || res == -Errno.ENFILE) {
            ctx.getLog().warn("accept on ring {} failed: {} (no file descriptor left); accepting again in {}",
                    loop.index(), Errno.name(res), tcp.acceptBackoff());
            state.errors.increment();
            state.descriptorPauses.increment();
            TcpRing.of(loop).counters().acceptBackoff();
            timers.startSingleTimer(Rearm.INSTANCE, tcp.acceptBackoff());
        } else if (res == -Errno.ECONNABORTED) {
            state.errors.increment(); // one connection reset before it was accepted: not the socket's fault
            rearm();
        } else if (res < 0 && res != -Errno.ECANCELED) {
            state.errors.increment();
            throw new AcceptFailedException("accept on ring " + loop.index() + " failed: " + Errno.name(res));
        } else {
            rearm();
        }
        return Behaviors.same();
    }

    /** Allows {@code credit} more connections: first those held, then new ones. */
    private Behavior<ListenerCommand> resume(int credit) {
        state.credit += credit;
        while (wantsMore() && !state.held.isEmpty()) {
            if (connection(state.held.poll())) {
                state.credit--;
            }
        }
        arm();
        return Behaviors.same();
    }

    private Behavior<ListenerCommand> unbind(Unbind u) {
        timers.cancelAll();
        closeHeld();
        if (accept == null) {
            return unbound(u.replyTo());
        }
        accept.cancel(); // connections that still arrive are closed
        cancelAccept();
        return unbinding(u.replyTo());
    }

    /** The accept is being cancelled: what it still brings is closed, and its end answers the Unbind. */
    private Behavior<ListenerCommand> unbinding(ActorRef<Event> replyTo) {
        return Behaviors.receive(ListenerCommand.class)
                .onMessage(Accepted.class, a -> {
                    Descriptors.close(a.fd());
                    return Behaviors.same();
                })
                .onMessage(AcceptEnded.class, ended -> {
                    if (ended.op() != accept) {
                        return Behaviors.same(); // the accept of an incarnation before a restart
                    }
                    accept = null;
                    return unbound(replyTo);
                })
                .onMessage(Unbind.class, again -> {
                    again.replyTo().tell(TcpProtocol.Unbound.INSTANCE); // no connection is handed out any more
                    return Behaviors.same();
                })
                .onMessageEquals(RingClosed.INSTANCE, () -> {
                    endWithRing();
                    return unbound(replyTo);
                })
                .onSignal(Terminated.class, t -> {
                    connectionEnded(t);
                    return Behaviors.same();
                })
                .onSignal(PostStop.class, s -> stoppedWithAcceptInFlight())
                .onAnyMessage(m -> Behaviors.same())
                .build();
    }

    private Behavior<ListenerCommand> unbound(ActorRef<Event> replyTo) {
        replyTo.tell(TcpProtocol.Unbound.INSTANCE);
        return draining();
    }

    /**
     * No more accepting (unbound, or the ring closed for good): the listener goes when its last connection has
     * closed; connections placed on other rings may live on after its ring.
     */
    private Behavior<ListenerCommand> draining() {
        if (ctx.getChildren().isEmpty()) {
            return Behaviors.stopped();
        }
        return Behaviors.receive(ListenerCommand.class)
                .onMessage(Accepted.class, a -> {
                    Descriptors.close(a.fd());
                    return Behaviors.same();
                })
                .onMessage(Unbind.class, u -> {
                    u.replyTo().tell(TcpProtocol.Unbound.INSTANCE);
                    return Behaviors.same();
                })
                .onMessageEquals(RingClosed.INSTANCE, () -> {
                    endWithRing(); // the group's other rings place connections here no more
                    return Behaviors.same();
                })
                .onSignal(Terminated.class, t -> {
                    connectionEnded(t);
                    return ctx.getChildren().isEmpty() ? Behaviors.stopped() : Behaviors.same();
                })
                .onSignal(PostStop.class, s -> {
                    loop.unsubscribe(ringEvents);
                    return Behaviors.same();
                })
                .onAnyMessage(m -> Behaviors.same())
                .build();
    }

    /** Stopped without an unbind (the actor system shutting down): close what it holds all the same. */
    private Behavior<ListenerCommand> stoppedWithAcceptInFlight() {
        loop.unsubscribe(ringEvents);
        if (accept != null) {
            accept.cancel(); // the ring's shutdown cancels the accept; fds it still brings are closed
        }
        closeHeld();
        return Behaviors.same();
    }

    private void closeHeld() {
        state.held.forEach(Descriptors::close);
        state.held.clear();
    }
}
