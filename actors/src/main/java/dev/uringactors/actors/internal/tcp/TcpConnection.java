package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.issue.SimpleOp;
import dev.uringactors.actors.internal.loop.RingEvent;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Aborted;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Closed;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.ConfirmedClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.tcp.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ReadControl;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

import java.net.InetSocketAddress;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One TCP connection, running on its ring's thread and issuing its own requests there: a multishot recv that
 * hands data to the handler, its writes ({@link PendingWrites}: one piece in flight, the rest queued), and a close
 * that first cancels every request on the socket and waits for their final completions, so that no buffer the
 * kernel may still read is reused and no request keeps the socket alive.
 *
 * <p>Its life is a sequence of {@link Phase}s, and reading has states of its own ({@link Reading}): each event
 * means one thing in each of them. The fd is this actor's from its first instruction: a failure anywhere, in
 * setup or later, ends in close(2), through the ring when it can take it and directly when it cannot.
 */
public final class TcpConnection {
    sealed interface Internal extends ConnectionCommand permits RecvEnded, SendDone, FileUnreadable, ConnectDone,
            CloseDone, IdleCheck, RegisterTimeout, HoldRegistration, RingClosed {
    }

    /**
     * The multishot recv ended: res > 0 (its limit reached, or data left), ENOBUFS, or EINVAL for a limit the
     * kernel refuses re-arm; 0 end of stream; else an error or cancellation.
     */
    record RecvEnded(int res) implements Internal {
    }

    /** A piece of the head write was sent ({@code res} bytes), or failed. */
    record SendDone(int res) implements Internal {
    }

    /** A WriteFile's read failed ({@code res} < 0) or found the end of the file (0) before its count. */
    record FileUnreadable(int res) implements Internal {
    }

    record ConnectDone(int res) implements Internal {
    }

    record CloseDone(int res) implements Internal {
    }

    enum IdleCheck implements Internal { INSTANCE }

    /** A register time-out: only the one started last, and not stopped since, counts (one may fire as it stops). */
    static final class RegisterTimeout implements Internal {
    }

    /**
     * From a Streams bind that holds the connection until its consumer asks for one ({@code held}): the register
     * time-out waits meanwhile, and starts again once the connection is handed out ({@code !held}).
     */
    public record HoldRegistration(boolean held) implements Internal {
    }

    /** The ring closed for good (it failed too often, or the system shuts down): close without it. */
    record RingClosed(RuntimeException cause) implements Internal {
    }

    /**
     * Tests only: wraps each connection's behavior as it is announced, so that a test can make the actor fail.
     * Nothing else sets it.
     */
    static volatile UnaryOperator<Behavior<ConnectionCommand>> wrapConnection = UnaryOperator.identity();

    /** Where the connection is in its life. */
    enum Phase {
        /** Not announced yet: an outgoing connection's CONNECT is in flight. */
        CONNECTING,
        /** Connected; no handler yet, so nothing is read. */
        AWAITING_REGISTRATION,
        /** Reading (unless suspended) and writing. */
        OPEN,
        /** The peer shut down its side; the handler asked to keep ours open for writing. */
        PEER_CLOSED,
        /** A close asked for (or the peer's end of stream without keep-open): what is queued is sent, then CLOSE. */
        CLOSING_AFTER_WRITES,
        /** A confirmed close asked for: what is queued is sent, then our side is shut down. */
        SHUTTING_DOWN_AFTER_WRITES,
        /** A confirmed close: our side is shut down; waiting for the peer's end of stream. */
        AWAITING_PEER_CLOSE,
        /** Cancelling every request on the socket; once their final completions are in, CLOSE. */
        CLOSING,
        /** The fd is being closed, or is closed: the answer of its CLOSE brings the final event. */
        CLOSED
    }

    /** The reading side: whether a recv is in flight, whether it is being cancelled, or whether all is read. */
    enum Reading {
        /** No recv in flight. */
        IDLE,
        /** A multishot recv is in flight. */
        ARMED,
        /** A cancel of the recv is in flight; the recv's final completion is still to come. */
        CANCELLING,
        /** The peer's end of stream was read: nothing more will come. */
        ENDED
    }

    private final ActorContext<ConnectionCommand> ctx;
    private final RingLoop loop;
    private final UringSettings.Tcp tcp;
    private final int fd;
    /** Told as the socket starts closing: an accepted connection's place on its ring is free from then on. */
    private final Runnable socketClosing;
    private final ActorRef<Event> owner;
    private final TimerScheduler<ConnectionCommand> timers;
    private final PendingWrites writes;
    private Phase phase = Phase.CONNECTING;
    private Reading reading = Reading.IDLE;
    private ActorRef<Event> handler;
    private boolean keepOpenOnPeerClosed;
    /** The handler asked to suspend reading. */
    private boolean suspended;
    private TcpOps.MultishotRecv recv;
    private long lastActivity = System.nanoTime();
    /** The event the connection ends with, decided as its close begins. */
    private ConnectionClosed endEvent;
    /** Handed out (Connected told): its handler is owed one event that ends it. */
    private boolean announced;
    /** That event was told. */
    private boolean endTold;
    /** The register time-out that counts, or null. */
    private RegisterTimeout registerTimeout;
    private Cancellable registerTimer;
    /** Hears of the ring's end, as long as the fd is open. */
    private final Consumer<RingEvent> ringEvents;

    /** {@code timers} is null unless an idle timeout is configured (a timer scheduler per connection costs). */
    private TcpConnection(ActorContext<ConnectionCommand> ctx, TimerScheduler<ConnectionCommand> timers,
                          RingLoop loop, UringSettings.Tcp tcp, int fd, ActorRef<Event> owner,
                          Runnable socketClosing) {
        this.ctx = ctx;
        this.socketClosing = socketClosing;
        this.timers = timers;
        this.loop = loop;
        this.tcp = tcp;
        this.fd = fd;
        this.owner = owner;
        ActorRef<ConnectionCommand> self = ctx.getSelf();
        this.writes = new PendingWrites(loop, tcp, fd, self, ctx.getSystem());
        this.ringEvents = RingEvent.whenClosed(closed -> self.tell(new RingClosed(closed.cause())));
    }

    /**
     * A connection the listener accepted: tells {@code bindHandler} it is connected, then waits for Register.
     * {@code localAddress} is the listener's address when it is a specific one (then the connection's too), or
     * null to ask the kernel. TCP_NODELAY comes from the listening socket. If its setup fails, the fd is closed and
     * {@code listener} gets back the accept credit it spent: the connection was never handed out.
     */
    static Behavior<ConnectionCommand> accepted(RingLoop loop, UringSettings.Tcp tcp, int fd,
                                                ActorRef<Event> bindHandler, InetSocketAddress remoteAddress,
                                                InetSocketAddress localAddress, ActorRef<ListenerCommand> listener,
                                                Runnable socketClosing) {
        return owningFd(fd, tcp, e -> listener.tell(TcpListener.NotHandedOut.INSTANCE), (ctx, timers) ->
                new TcpConnection(ctx, timers, loop, tcp, fd, bindHandler, socketClosing)
                        .announce(remoteAddress, localAddress));
    }

    /**
     * Runs {@code start}; if it throws, closes {@code fd}, tells {@code setupFailed} why, and stops, so that no
     * failure in setup leaks the fd or leaves a request unanswered.
     */
    private static Behavior<ConnectionCommand> owningFd(int fd, UringSettings.Tcp tcp,
            Consumer<RuntimeException> setupFailed,
            BiFunction<ActorContext<ConnectionCommand>, TimerScheduler<ConnectionCommand>,
                    Behavior<ConnectionCommand>> start) {
        BiFunction<ActorContext<ConnectionCommand>, TimerScheduler<ConnectionCommand>, Behavior<ConnectionCommand>>
                owned = (ctx, timers) -> {
                    try {
                        return start.apply(ctx, timers);
                    } catch (RuntimeException e) {
                        Descriptors.close(fd);
                        ctx.getLog().debug("connection closed during setup: {}", e.getMessage());
                        setupFailed.accept(e);
                        return Behaviors.stopped();
                    }
                };
        // A timer scheduler per connection costs: only with an idle timeout.
        return tcp.idleTimeout() == null
                ? Behaviors.setup(ctx -> owned.apply(ctx, null))
                : Behaviors.setup(ctx -> Behaviors.withTimers(timers -> owned.apply(ctx, timers)));
    }

    /**
     * An outgoing connection: connects through the ring, then tells {@code handler} Connected, or CommandFailed
     * when anything before that fails (the socket, its setup, the CONNECT, or a peer that reset at once).
     */
    static Behavior<ConnectionCommand> connecting(RingLoop loop, UringSettings.Tcp tcp,
                                                  TcpProtocol.Connect command) {
        int fd;
        try {
            fd = Sockets.connectionSocket(command.remoteAddress());
        } catch (UringException e) {
            command.handler().tell(new CommandFailed(command, e));
            return Behaviors.stopped();
        }
        return owningFd(fd, tcp, e -> command.handler().tell(new CommandFailed(command, e)), (ctx, timers) -> {
            if (tcp.noDelay()) {
                Sockets.setOption(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
            }
            TcpConnection c = new TcpConnection(ctx, timers, loop, tcp, fd, command.handler(), () -> { });
            NativeBuffer sockaddr = NativeBuffer.allocate(Sockets.SOCKADDR_SIZE);
            int len;
            try {
                len = Sockets.encode(command.remoteAddress(), sockaddr);
            } catch (RuntimeException e) { // an unresolved address
                sockaddr.close();
                throw e;
            }
            ActorRef<ConnectionCommand> self = ctx.getSelf();
            loop.subscribe(c.ringEvents);
            loop.issuer().issue(TcpOps.simple(Opcode.CONNECT, sqe -> sqe.prepConnect(fd, sockaddr.address(), len),
                    sockaddr, res -> self.tell(new ConnectDone(res))));
            return Behaviors.receive(ConnectionCommand.class)
                    .onMessage(ConnectDone.class, done -> c.connectDone(command, done.res()))
                    .onSignal(PostStop.class, s -> {
                        c.closeOnStop();
                        return Behaviors.same();
                    })
                    .build();
        });
    }

    /** The CONNECT completed: announce the connection, or answer the Connect with why it failed. */
    private Behavior<ConnectionCommand> connectDone(TcpProtocol.Connect command, int res) {
        RuntimeException failure;
        try {
            if (res >= 0) { // getpeername says ENOTCONN for a peer that reset already: the connect failed after all
                return announce(Sockets.remoteAddress(fd), Sockets.localAddress(fd));
            }
            failure = UringException.ofResult(Opcode.CONNECT, res, command.remoteAddress().toString(), 0);
        } catch (RuntimeException e) {
            failure = e;
        }
        closeOnStop();
        command.handler().tell(new CommandFailed(command, failure));
        return Behaviors.stopped();
    }

    /** Tells the owner it is connected, last: a connection whose setup failed before was never handed out. */
    private Behavior<ConnectionCommand> announce(InetSocketAddress remoteAddress, InetSocketAddress localAddress) {
        loop.subscribe(ringEvents);
        if (timers != null) {
            timers.startTimerWithFixedDelay(IdleCheck.INSTANCE, tcp.idleTimeout().dividedBy(2));
        }
        startRegisterTimeout();
        TcpRing.of(loop).counters().connectionOpened();
        phase = Phase.AWAITING_REGISTRATION;
        owner.tell(new TcpProtocol.Connected(remoteAddress, localAddress, ctx.getSelf(), loop.index()));
        announced = true;
        // One behavior object with a type test per message: cheaper to build per connection than a builder.
        return wrapConnection.apply(Behaviors.receive((context, m) -> onMessage(m),
                (context, signal) -> onSignal(signal)));
    }

    private Behavior<ConnectionCommand> onSignal(Signal signal) {
        if (signal instanceof PostStop) {
            closeOnStop();
        } else if (signal instanceof Terminated && !ending()) {
            return cancelRequestsAndClose(Closed.INSTANCE); // its handler stopped: nobody reads or writes it any more
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> onMessage(ConnectionCommand m) {
        if (ending()) {
            return whileEnding(m);
        }
        if (m instanceof SendDone done) {
            return sendDone(done.res());
        } else if (m instanceof WriteCommand w) {
            return write(w);
        } else if (m instanceof FileUnreadable u) {
            return fileUnreadable(u.res());
        } else if (m instanceof RecvEnded ended) {
            return recvEnded(ended.res());
        } else if (m instanceof Register r) {
            return register(r);
        } else if (m instanceof ReadControl control) {
            return readControl(control);
        } else if (m instanceof CloseCommand close) {
            return close(close);
        } else if (m instanceof RingClosed closed) {
            return cancelRequestsAndClose(new ErrorClosed("ring " + loop.index() + " is closed: "
                    + closed.cause().getMessage()));
        } else if (m instanceof IdleCheck) {
            return idleCheck();
        } else if (m instanceof HoldRegistration hold) {
            return holdRegistration(hold.held());
        } else if (m instanceof RegisterTimeout timeout) {
            return registerTimedOut(timeout);
        }
        return Behaviors.unhandled(); // ConnectDone after connecting
    }

    /** Closing: what still comes is the answers of the requests in flight, and commands it no longer takes. */
    private Behavior<ConnectionCommand> whileEnding(ConnectionCommand m) {
        if (m instanceof SendDone || m instanceof FileUnreadable) {
            writes.pieceAnswered();
            return closeWhenIdle();
        } else if (m instanceof RecvEnded) {
            recv = null;
            reading = Reading.IDLE;
            return closeWhenIdle();
        } else if (m instanceof CloseDone) {
            loop.unsubscribe(ringEvents);
            tellEnd(endEvent);
            return Behaviors.stopped();
        } else if (m instanceof WriteCommand w) {
            return write(w); // refused: the connection is closing
        }
        return Behaviors.same();
    }

    private boolean ending() {
        return phase == Phase.CLOSING || phase == Phase.CLOSED;
    }

    /** Whether a close has begun: the connection takes no more writes. */
    private boolean closeBegun() {
        return switch (phase) {
            case CLOSING_AFTER_WRITES, SHUTTING_DOWN_AFTER_WRITES, AWAITING_PEER_CLOSE, CLOSING, CLOSED -> true;
            case CONNECTING, AWAITING_REGISTRATION, OPEN, PEER_CLOSED -> false;
        };
    }

    private ActorRef<Event> handler() {
        return handler != null ? handler : owner;
    }

    // ---- registration

    private void startRegisterTimeout() {
        registerTimeout = new RegisterTimeout();
        registerTimer = ctx.scheduleOnce(tcp.registerTimeout(), ctx.getSelf(), registerTimeout);
    }

    private void stopRegisterTimeout() {
        if (registerTimeout != null) {
            registerTimer.cancel();
            registerTimeout = null;
        }
    }

    private Behavior<ConnectionCommand> holdRegistration(boolean held) {
        stopRegisterTimeout();
        if (!held && phase == Phase.AWAITING_REGISTRATION) {
            startRegisterTimeout();
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> registerTimedOut(RegisterTimeout timeout) {
        return timeout != registerTimeout ? Behaviors.same() // stopped after it fired
                : cancelRequestsAndClose(new ErrorClosed("no handler registered within " + tcp.registerTimeout()
                        + " (uring.tcp.register-timeout)"));
    }

    private Behavior<ConnectionCommand> register(Register r) {
        if (phase == Phase.AWAITING_REGISTRATION) {
            stopRegisterTimeout();
            handler = r.handler();
            ctx.watch(handler); // a death pact, as in Pekko IO: the handler stops, the connection closes
            keepOpenOnPeerClosed = r.keepOpenOnPeerClosed();
            phase = Phase.OPEN;
            readIfWanted();
        }
        return Behaviors.same();
    }

    // ---- reading

    /** Reading is wanted while someone reads and the peer may still send; a confirmed close reads to see the end. */
    private boolean wantsReading() {
        return reading != Reading.ENDED && switch (phase) {
            case OPEN, CLOSING_AFTER_WRITES, SHUTTING_DOWN_AFTER_WRITES -> !suspended;
            case AWAITING_PEER_CLOSE -> true;
            case CONNECTING, AWAITING_REGISTRATION, PEER_CLOSED, CLOSING, CLOSED -> false;
        };
    }

    private void readIfWanted() {
        if (reading == Reading.IDLE && wantsReading()) {
            TcpRing tcpRing = TcpRing.of(loop);
            if (!tcpRing.isOpen()) { // it closed after the connection was made: end as its RingClosed ends it
                ctx.getSelf().tell(new RingClosed(new IllegalStateException("it closed before the connection read")));
                return;
            }
            Runnable onData = tcp.idleTimeout() == null ? () -> { } : () -> lastActivity = System.nanoTime();
            recv = new TcpOps.MultishotRecv(fd, tcpRing.recvBuffers(), tcpRing.recvLimit(), handler(), ctx.getSelf(),
                    onData);
            loop.issuer().issue(recv);
            reading = Reading.ARMED;
        }
    }

    private Behavior<ConnectionCommand> readControl(ReadControl control) {
        suspended = control == ReadControl.SUSPEND_READING;
        if (suspended && reading == Reading.ARMED && !wantsReading()) {
            loop.issuer().issue(SimpleOp.cancel(recv.userData()));
            reading = Reading.CANCELLING;
        } else {
            readIfWanted(); // while a cancel is in flight the recv's end re-arms it, if reading is wanted by then
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> recvEnded(int res) {
        boolean cancelledHere = reading == Reading.CANCELLING;
        boolean limitRefused = res == -Errno.EINVAL && recv != null && recv.limit() > 0;
        reading = Reading.IDLE;
        recv = null;
        if (res == -Errno.ENOBUFS) {
            TcpRing.of(loop).counters().recvBufferShortage();
        }
        if (limitRefused) {
            TcpRing.of(loop).recvLimitRefused(ctx.getLog());
        }
        if (res > 0 || res == -Errno.ENOBUFS || (res == -Errno.ECANCELED && cancelledHere) || limitRefused) {
            // Stopped at its limit or with data left to read, for lack of buffers, cancelled by us, or refused
            // its limit by the kernel: go on if wanted.
            readIfWanted();
            return Behaviors.same();
        }
        if (res == 0) {
            reading = Reading.ENDED;
            return peerEnded();
        }
        return fail(res);
    }

    /** The peer shut down its side: its end of stream was read. */
    private Behavior<ConnectionCommand> peerEnded() {
        switch (phase) {
            case AWAITING_PEER_CLOSE:
                return cancelRequestsAndClose(ConfirmedClosed.INSTANCE);
            case OPEN:
                if (keepOpenOnPeerClosed) {
                    phase = Phase.PEER_CLOSED;
                    handler().tell(PeerClosed.INSTANCE);
                    return Behaviors.same();
                }
                return closeAfterWrites(PeerClosed.INSTANCE); // as Pekko IO: send what is queued, then close
            case SHUTTING_DOWN_AFTER_WRITES: // both sides are done once the writes are: no shutdown needed
                return closeAfterWrites(ConfirmedClosed.INSTANCE);
            default: // CLOSING_AFTER_WRITES: its own close follows the writes
                return Behaviors.same();
        }
    }

    // ---- writing

    private Behavior<ConnectionCommand> write(WriteCommand w) {
        Exception refused = closeBegun() ? new IllegalStateException("the connection is closing")
                : writes.refusal(w);
        if (refused == null) {
            writes.add(w);
        } else {
            writes.giveBackFile(w);
            handler().tell(new CommandFailed(w, refused));
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> sendDone(int res) {
        if (res < 0) {
            writes.pieceAnswered();
            return fail(res);
        }
        lastActivity = System.nanoTime();
        writes.sent(res, written -> {
            if (written.ack() != null) {
                handler().tell(written.ack());
            }
        });
        boolean closingAfterWrites = phase == Phase.CLOSING_AFTER_WRITES || phase == Phase.SHUTTING_DOWN_AFTER_WRITES;
        return closingAfterWrites && writes.allSent() ? writesDone() : Behaviors.same();
    }

    /**
     * The file of the head WriteFile could not give the bytes promised: the peer has part of what it was told
     * to expect, so nothing may follow; the handler hears why, and the connection closes.
     */
    private Behavior<ConnectionCommand> fileUnreadable(int res) {
        writes.pieceAnswered();
        Exception cause = writes.unreadable(res);
        handler().tell(new CommandFailed(writes.head(), cause));
        return cancelRequestsAndClose(new ErrorClosed(cause.getMessage()));
    }

    // ---- closing

    private Behavior<ConnectionCommand> close(CloseCommand command) {
        if (closeBegun()) {
            return Behaviors.same();
        }
        if (command == CloseCommand.ABORT) {
            Sockets.setLingerZero(fd); // close sends RST; what is queued is dropped, as the handler asked
            return cancelRequestsAndClose(Aborted.INSTANCE);
        }
        if (command == CloseCommand.CLOSE) {
            return closeAfterWrites(Closed.INSTANCE);
        }
        if (reading == Reading.ENDED) { // a confirmed close of a connection whose peer is done already
            return closeAfterWrites(ConfirmedClosed.INSTANCE);
        }
        phase = Phase.SHUTTING_DOWN_AFTER_WRITES;
        return writes.allSent() ? writesDone() : Behaviors.same();
    }

    /** Sends what is queued, then closes with {@code event}. */
    private Behavior<ConnectionCommand> closeAfterWrites(ConnectionClosed event) {
        phase = Phase.CLOSING_AFTER_WRITES;
        endEvent = event;
        return writes.allSent() ? writesDone() : Behaviors.same();
    }

    /** Everything queued is sent: close, or for a confirmed close shut down our side and wait for the peer's. */
    private Behavior<ConnectionCommand> writesDone() {
        if (phase == Phase.CLOSING_AFTER_WRITES) {
            return cancelRequestsAndClose(endEvent);
        }
        loop.issuer().issue(TcpOps.unanswered(Opcode.SHUTDOWN, sqe -> sqe.prepShutdown(fd, OpFlags.SHUT_WR)));
        phase = Phase.AWAITING_PEER_CLOSE;
        readIfWanted(); // the peer's end of stream must be seen, registered or not, suspended or not
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> idleCheck() {
        if (System.nanoTime() - lastActivity > tcp.idleTimeout().toNanos()) {
            return cancelRequestsAndClose(new ErrorClosed("idle timeout: no data either way for "
                    + tcp.idleTimeout()));
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> fail(int res) {
        // Nothing here cancels a request of an open connection but its ring failing or shutting down.
        return cancelRequestsAndClose(new ErrorClosed(res == -Errno.ECANCELED ? "ring " + loop.index()
                + " failed or shut down" : Errno.name(res) + " (" + Errno.describe(res) + ")"));
    }

    /**
     * Ends the connection with {@code event}: cancels every request on the socket, and once their final
     * completions are in, closes the fd; its answer brings the event.
     */
    private Behavior<ConnectionCommand> cancelRequestsAndClose(ConnectionClosed event) {
        phase = Phase.CLOSING;
        endEvent = event;
        if (timers != null) {
            timers.cancelAll();
        }
        stopRegisterTimeout();
        cancelInFlight();
        return closeWhenIdle();
    }

    /** Cancels every request on the socket; a send stops where it is instead of going on with the rest. */
    private void cancelInFlight() {
        writes.stopSending();
        if (recv != null || writes.sending()) {
            loop.issuer().issue(TcpOps.unanswered(Opcode.ASYNC_CANCEL,
                    sqe -> sqe.prepCancelFd(fd, OpFlags.ASYNC_CANCEL_ALL)));
        }
    }

    /** Closes the fd once nothing is in flight on it; what was not sent gives back the files it was given. */
    private Behavior<ConnectionCommand> closeWhenIdle() {
        if (phase == Phase.CLOSING && recv == null && !writes.sending()) {
            countClosed();
            phase = Phase.CLOSED;
            writes.discard();
            ActorRef<ConnectionCommand> self = ctx.getSelf();
            loop.issuer().issue(TcpOps.close(fd, res -> self.tell(new CloseDone(res))));
        }
        return Behaviors.same();
    }

    /**
     * The fd is being closed: the ring has one connection less, if it was announced (counted on its thread,
     * while it turns), and its bind may place the next one there.
     */
    private void countClosed() {
        socketClosing.run();
        if (phase != Phase.CONNECTING && loop.inLoop()) {
            TcpRing.of(loop).counters().connectionClosed();
        }
    }

    /** Tells the handler (the owner before one registered) how the connection ended, once. */
    private void tellEnd(ConnectionClosed event) {
        if (announced && !endTold) {
            endTold = true;
            handler().tell(event);
        }
    }

    /**
     * Stopped from outside (its parent, the system shutting down, a failure): close without waiting for anyone,
     * and tell the handler, as Pekko IO does, unless it heard already: the end a close under way was to tell, or
     * an ErrorClosed. On the loop thread through the ring (which
     * closes directly once it is shut down); off it the loop has ended and its ring is drained, so close(2) runs
     * here.
     */
    private void closeOnStop() {
        // A close already under way ends as it was to end; any other way is an error.
        tellEnd(endEvent != null ? endEvent
                : new ErrorClosed("the connection's actor stopped before the connection ended"));
        loop.unsubscribe(ringEvents);
        if (phase == Phase.CLOSED) {
            return;
        }
        countClosed();
        phase = Phase.CLOSED;
        if (loop.inLoop()) {
            cancelInFlight();
            loop.issuer().issue(TcpOps.close(fd));
        } else {
            Descriptors.close(fd);
        }
        writes.discard();
    }
}
