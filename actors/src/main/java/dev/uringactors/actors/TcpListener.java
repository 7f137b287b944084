package dev.uringactors.actors;

import dev.uringactors.actors.TcpProtocol.Event;
import dev.uringactors.actors.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.TcpProtocol.ResumeAccepting;
import dev.uringactors.actors.TcpProtocol.Unbind;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sockets;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * Accepts on one ring: one multishot ACCEPT in flight, re-armed when a CQE comes without F_MORE, after a back-off
 * when the process is out of file descriptors; single-shot ACCEPTs, one after another, where the kernel rejects
 * multishot (before 5.19) or {@code uring.tcp.accept = single} asks for them. Each connection becomes a {@link TcpConnection} child on the same
 * ring. In pull mode it accepts only what {@link ResumeAccepting} allowed: with no credit left it cancels the
 * accept and the kernel's backlog holds new connections. After {@link Unbind} it closes fds that still arrive
 * for the cancelled accept, and lives on, without listening, until its connections have closed.
 */
final class TcpListener {
    sealed interface Internal extends ListenerCommand permits Accepted, AcceptEnded, Rearm {
    }

    record Accepted(int fd) implements Internal {
    }

    record AcceptEnded(TcpOps.Accept op, int res) implements Internal {
    }

    enum Rearm implements Internal { INSTANCE }

    private final ActorContext<ListenerCommand> ctx;
    private final TimerScheduler<ListenerCommand> timers;
    private final RingLoop loop;
    private final UringSettings.Tcp tcp;
    private final int listenFd;
    private final boolean ownsFd;
    private final ActorRef<Event> handler;
    private final boolean pullMode;
    /** The connections' local address when the listener's is a specific one; null for a wildcard. */
    private final InetSocketAddress localAddress;
    /** Connections accepted beyond the credit: handed out at the next ResumeAccepting. */
    private final ArrayDeque<Integer> held = new ArrayDeque<>();
    private TcpOps.Accept accept;
    private boolean multishot;
    private long credit;
    private ActorRef<Event> unbindReplyTo;
    /** The accept has ended and Unbound was sent: only connections may keep the listener alive now. */
    private boolean unbound;

    private TcpListener(ActorContext<ListenerCommand> ctx, TimerScheduler<ListenerCommand> timers, RingLoop loop,
                        UringSettings.Tcp tcp, int listenFd, boolean ownsFd, ActorRef<Event> handler,
                        boolean pullMode) {
        this.ctx = ctx;
        this.timers = timers;
        this.loop = loop;
        this.tcp = tcp;
        this.listenFd = listenFd;
        this.ownsFd = ownsFd;
        this.handler = handler;
        this.pullMode = pullMode;
        this.multishot = tcp.accept() == UringSettings.AcceptMode.MULTISHOT;
        InetSocketAddress bound = Sockets.localAddress(listenFd);
        this.localAddress = bound.getAddress().isAnyLocalAddress() ? null : bound;
    }

    static Behavior<ListenerCommand> create(RingLoop loop, UringSettings.Tcp tcp, int listenFd, boolean ownsFd,
                                            ActorRef<Event> handler, boolean pullMode) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            TcpListener l = new TcpListener(ctx, timers, loop, tcp, listenFd, ownsFd, handler, pullMode);
            l.arm();
            return l.listening();
        }));
    }

    private boolean wantsMore() {
        return !pullMode || credit > 0;
    }

    private void arm() {
        if (accept == null && unbindReplyTo == null && wantsMore()) {
            accept = new TcpOps.Accept(listenFd, multishot, ctx.getSelf());
            loop.issuer().issue(accept);
        }
    }

    private void cancelAccept() {
        long userData = accept.userData;
        loop.issuer().issue(new TcpOps.Simple(Opcode.ASYNC_CANCEL, sqe -> sqe.prepCancel(userData, 0), null,
                res -> { }));
    }

    private Behavior<ListenerCommand> listening() {
        return Behaviors.receive(ListenerCommand.class)
                .onMessage(Accepted.class, this::accepted)
                .onMessage(AcceptEnded.class, this::acceptEnded)
                .onMessage(Rearm.class, r -> {
                    arm();
                    return Behaviors.same();
                })
                .onMessage(ResumeAccepting.class, this::resume)
                .onMessage(Unbind.class, this::unbind)
                .onSignal(Terminated.class, t -> stopWhenDone())
                .onSignal(PostStop.class, s -> closeIfStoppedBound())
                .build();
    }

    private Behavior<ListenerCommand> accepted(Accepted a) {
        if (unbindReplyTo != null) {
            Sockets.close(a.fd());
        } else if (wantsMore()) {
            credit--;
            connection(a.fd());
            if (!wantsMore() && accept != null) {
                cancelAccept(); // pull mode, credit used up: leave the rest in the kernel backlog
            }
        } else {
            held.add(a.fd()); // accepted by the kernel before the cancellation took effect
        }
        return Behaviors.same();
    }

    private void connection(int fd) {
        ctx.watch(ctx.spawnAnonymous(TcpConnection.accepted(loop, tcp, fd, handler, localAddress),
                DispatcherSelector.sameAsParent()));
    }

    private Behavior<ListenerCommand> acceptEnded(AcceptEnded ended) {
        if (ended.op() != accept) {
            return Behaviors.same();
        }
        accept = null;
        if (unbindReplyTo != null) {
            return finishUnbind();
        }
        int res = ended.res();
        if (res == TcpOps.RING_FAILED) {
            if (loop.issuer().isOpen()) {
                arm(); // the ring was restarted: accept on the fresh one (the listening socket kept its backlog)
            }
        } else if (res == -Errno.EINVAL && ended.op().multishot()) {
            ctx.getLog().info("multishot accept rejected by this kernel (needs 5.19): accepting one at a time");
            multishot = false;
            arm();
        } else if (res == -Errno.EMFILE || res == -Errno.ENFILE || (res < 0 && res != -Errno.ECANCELED)) {
            ctx.getLog().warn("accept on ring {} failed: {}; accepting again in {}", loop.index(), Errno.name(res),
                    tcp.acceptBackoff());
            loop.tcpCounters().acceptBackoff();
            timers.startSingleTimer(Rearm.INSTANCE, tcp.acceptBackoff());
        } else {
            arm();
        }
        return Behaviors.same();
    }

    private Behavior<ListenerCommand> resume(ResumeAccepting r) {
        credit += r.batchSize();
        while (wantsMore() && !held.isEmpty()) {
            credit--;
            connection(held.poll());
        }
        arm();
        return Behaviors.same();
    }

    private Behavior<ListenerCommand> unbind(Unbind u) {
        if (unbindReplyTo != null) {
            return Behaviors.same();
        }
        unbindReplyTo = u.replyTo();
        timers.cancelAll();
        held.forEach(Sockets::close);
        held.clear();
        if (accept == null) {
            return finishUnbind();
        }
        accept.cancel(); // connections that still arrive are closed
        cancelAccept();
        return Behaviors.same();
    }

    private Behavior<ListenerCommand> finishUnbind() {
        if (ownsFd) {
            Sockets.close(listenFd);
        }
        unbindReplyTo.tell(TcpProtocol.Unbound.INSTANCE);
        unbound = true;
        return stopWhenDone();
    }

    /** Stopped without an unbind (the actor system shutting down): close the socket all the same. */
    private Behavior<ListenerCommand> closeIfStoppedBound() {
        if (!unbound) {
            if (accept != null) {
                accept.cancel(); // the ring's shutdown cancels the accept; fds it still brings are closed
            }
            held.forEach(Sockets::close);
            if (ownsFd) {
                Sockets.close(listenFd);
            }
        }
        return Behaviors.same();
    }

    /** After unbinding, the listener goes once its last connection has closed (they are its children). */
    private Behavior<ListenerCommand> stopWhenDone() {
        return unbound && ctx.getChildren().isEmpty() ? Behaviors.stopped() : Behaviors.same();
    }
}
