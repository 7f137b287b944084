package dev.uringactors.actors.internal.tcp.conn;

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
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ReadControl;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ExtensibleBehavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One TCP connection's protocol, written once for both backends: Register, reading and its suspension
 * ({@link ReadSide}), the writes ({@link WriteQueue}), the register and idle timeouts, half-close, and the one
 * event that ends it for its handler. Each phase of its life is a behaviour of its own: connecting, awaiting
 * registration, open, half-open (the peer is done, we write on), closing after the writes, shutting down after
 * the writes, awaiting the peer's close, and closing. What it does to the socket goes through {@link SocketIo},
 * a ring's or Pekko IO's; the socket's answers come back as messages, which the socket interprets.
 *
 * <p>The actor takes any message (its public face is {@code ActorRef<ConnectionCommand>}): the users' commands,
 * its timers and {@link HoldRegistration}, and whatever its socket sends itself.
 */
public final class Connection {
    /**
     * From a Streams bind that holds the connection until its consumer asks for one ({@code held}): the register
     * time-out waits meanwhile, and starts again once the connection is handed out ({@code !held}).
     */
    public record HoldRegistration(boolean held) {
        /** Tells {@code connection} to hold its registration, or not. */
        public static void tell(ActorRef<ConnectionCommand> connection, boolean held) {
            connection.<Object>unsafeUpcast().tell(new HoldRegistration(held));
        }
    }

    private enum IdleCheck { INSTANCE }

    /** The Connect's timeout has passed. */
    private enum ConnectTimeout { INSTANCE }

    /** A register time-out: only the one started last, and not stopped since, counts (one may fire as it stops). */
    private static final class RegisterTimeout {
    }

    private final ActorContext<Object> ctx;
    /** Null unless an idle timeout is configured (a timer scheduler per connection costs). */
    private final TimerScheduler<Object> timers;
    private final UringSettings.Tcp tcp;
    private final SocketIo socket;
    private final WriteQueue writes;
    private final ReadSide reading;
    /** Who heard of the connection (the bind's or the connect's handler): it gets events until a Register. */
    private final ActorRef<Event> owner;
    private ActorRef<Event> handler;
    /** What the handler asked at Register: on the peer's end of stream, write on instead of closing. */
    private boolean keepOpenOnPeerClosed;
    private long lastActivity = System.nanoTime();
    private RegisterTimeout registerTimeout;
    private Cancellable registerTimer;
    /** The event the connection ends with, decided as its close begins; null before. */
    private ConnectionClosed endEvent;
    /** That event was told. */
    private boolean endTold;

    /** Opens the socket with {@code socket}; if that throws, the socket has closed itself. */
    private Connection(ActorContext<Object> ctx, TimerScheduler<Object> timers, UringSettings.Tcp tcp,
                       Function<SocketSetup, SocketIo> socket, ActorRef<Event> owner) {
        this.ctx = ctx;
        this.timers = timers;
        this.tcp = tcp;
        this.owner = owner;
        this.writes = new WriteQueue(tcp);
        this.socket = socket.apply(new SocketSetup(ctx, this::touch));
        this.reading = new ReadSide(this.socket);
    }

    /** The time of the latest data either way, for the idle timeout; the socket calls it on its data. */
    private void touch() {
        lastActivity = System.nanoTime();
    }

    /**
     * A connection that was accepted: {@code socket} opens it (given the actor's context and what to call on
     * data); it tells {@code owner} it is connected, then waits for Register. If its setup fails, the socket is
     * closed and {@code setupFailed} hears why: the connection was never handed out.
     */
    public static Behavior<Object> accepted(UringSettings.Tcp tcp, ActorRef<Event> owner,
                                            Function<SocketSetup, SocketIo> socket,
                                            InetSocketAddress remoteAddress, InetSocketAddress localAddress,
                                            Consumer<RuntimeException> setupFailed) {
        return withTimers(tcp, (ctx, timers) -> {
            Connection connection;
            try {
                connection = new Connection(ctx, timers, tcp, socket, owner);
            } catch (RuntimeException e) { // the socket closed itself
                return setupFailed(ctx, e, setupFailed);
            }
            try {
                return connection.announce(remoteAddress, localAddress);
            } catch (RuntimeException e) {
                connection.socket.closeOnStop(connection.writes);
                return setupFailed(ctx, e, setupFailed);
            }
        });
    }

    private static Behavior<Object> setupFailed(ActorContext<Object> ctx, RuntimeException e,
                                                Consumer<RuntimeException> setupFailed) {
        ctx.getLog().debug("connection closed during setup: {}", e.getMessage());
        setupFailed.accept(e);
        return Behaviors.stopped();
    }

    /**
     * An outgoing connection: {@code socket} starts connecting; once it is connected, {@code command}'s handler is
     * told Connected, or CommandFailed when anything before that fails.
     */
    public static Behavior<Object> connecting(UringSettings.Tcp tcp, TcpProtocol.Connect command,
                                              Function<SocketSetup, SocketIo> socket) {
        return withTimers(tcp, (ctx, timers) -> {
            try {
                return new Connection(ctx, timers, tcp, socket, command.handler()).new Connecting(command);
            } catch (RuntimeException e) { // the socket closed itself
                command.handler().tell(new CommandFailed(command, e));
                return Behaviors.stopped();
            }
        });
    }

    /** What a socket is made with: the connection's actor, and what to call when data comes (the idle clock). */
    public record SocketSetup(ActorContext<Object> ctx, Runnable onData) {
    }

    /** A timer scheduler per connection costs: only with an idle timeout. */
    private static Behavior<Object> withTimers(UringSettings.Tcp tcp,
            BiFunction<ActorContext<Object>, TimerScheduler<Object>, Behavior<Object>> start) {
        return tcp.idleTimeout() == null
                ? Behaviors.setup(ctx -> start.apply(ctx, null))
                : Behaviors.setup(ctx -> Behaviors.withTimers(timers -> start.apply(ctx, timers)));
    }

    /** Tells the owner it is connected, last: a connection whose setup failed before was never handed out. */
    private Behavior<Object> announce(InetSocketAddress remoteAddress, InetSocketAddress localAddress) {
        socket.opened();
        if (timers != null) {
            timers.startTimerWithFixedDelay(IdleCheck.INSTANCE, tcp.idleTimeout().dividedBy(2));
        }
        startRegisterTimeout();
        owner.tell(new TcpProtocol.Connected(remoteAddress, localAddress,
                ctx.getSelf().<ConnectionCommand>narrow(), socket.ring()));
        return new AwaitingRegistration();
    }

    private ActorRef<Event> handler() {
        return handler != null ? handler : owner;
    }

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

    /**
     * Tells the handler (the owner before one registered) how the connection ended, once. Only the phases after
     * the announcement call it: the handler is owed that event from then on.
     */
    private void tellEnd(ConnectionClosed event) {
        if (!endTold) {
            endTold = true;
            handler().tell(event);
        }
    }

    /**
     * Stopped from outside (its parent, the system shutting down, a failure): the socket closes without waiting
     * for anyone, and the handler hears, as Pekko IO's does, unless it heard already: the end a close under way
     * was to tell, or an ErrorClosed.
     */
    private void closeOnStop() {
        tellEnd(endEvent != null ? endEvent
                : new ErrorClosed("the connection's actor stopped before the connection ended"));
        socket.closeOnStop(writes);
    }

    /** What every phase does with a message: commands, timers and the socket's answers each to its method. */
    private abstract class Phase extends ExtensibleBehavior<Object> {
        @Override
        public final Behavior<Object> receive(TypedActorContext<Object> context, Object m) {
            if (m instanceof ConnectionCommand command) {
                return onCommand(command);
            } else if (m == IdleCheck.INSTANCE) {
                return onIdleCheck();
            } else if (m instanceof RegisterTimeout timeout) {
                return timeout == registerTimeout ? onRegisterTimeout() : this; // stopped after it fired
            } else if (m instanceof HoldRegistration hold) {
                stopRegisterTimeout();
                return onRegistrationHeld(hold.held());
            } else if (m == ConnectTimeout.INSTANCE) {
                return onConnectTimeout();
            }
            SocketEvent event = socket.interpret(m);
            return event == null ? this : onSocket(event);
        }

        @Override
        public final Behavior<Object> receiveSignal(TypedActorContext<Object> context, Signal signal) {
            if (signal instanceof PostStop) {
                onStop();
            } else if (signal instanceof Terminated t) {
                if (handler != null && t.getRef().equals(handler)) {
                    return onHandlerStopped();
                }
                SocketEvent event = socket.interpret(t);
                return event == null ? this : onSocket(event);
            }
            return this;
        }

        abstract Behavior<Object> onCommand(ConnectionCommand command);

        abstract Behavior<Object> onSocket(SocketEvent event);

        Behavior<Object> onIdleCheck() {
            return this;
        }

        Behavior<Object> onRegisterTimeout() {
            return this;
        }

        /** Only the connecting phase heeds it: one may fire as the connect completes. */
        Behavior<Object> onConnectTimeout() {
            return this;
        }

        /** A Streams bind holds the connection ({@code held}) or has handed it out; its timeout is stopped. */
        Behavior<Object> onRegistrationHeld(boolean held) {
            return this;
        }

        Behavior<Object> onHandlerStopped() {
            return this;
        }

        void onStop() {
            closeOnStop();
        }

        /** Refuses {@code w}, giving back the file it owns: the connection takes no more writes. */
        final Behavior<Object> refuse(WriteCommand w, Exception why) {
            if (w instanceof WriteFile file) {
                socket.closeOwnedFile(file);
            }
            handler().tell(new CommandFailed(w, why));
            return this;
        }
    }

    /**
     * An outgoing connection's connect is under way; nobody else knows of it yet. A connect that takes longer than
     * the Connect's timeout fails, its socket closed (on a ring the CONNECT in flight is cancelled first).
     */
    private final class Connecting extends Phase {
        private final TcpProtocol.Connect command;
        private final Cancellable timeout;
        /** The Connect was answered (CommandFailed): nothing more is owed at the stop. */
        private boolean answered;

        Connecting(TcpProtocol.Connect command) {
            this.command = command;
            this.timeout = command.timeout()
                    .map(t -> ctx.scheduleOnce(t, ctx.getSelf(), ConnectTimeout.INSTANCE))
                    .orElse(null);
        }

        @Override
        Behavior<Object> onCommand(ConnectionCommand command) {
            return this; // nobody has the connection yet
        }

        @Override
        Behavior<Object> onSocket(SocketEvent event) {
            if (event instanceof SocketEvent.Connected c) {
                stopTimeout();
                return announce(c.remoteAddress(), c.localAddress());
            } else if (event instanceof SocketEvent.ConnectFailed f) {
                return failed(f.cause());
            } else if (event instanceof SocketEvent.Failed f) {
                return failed(new IllegalStateException(f.reason()));
            }
            return this;
        }

        @Override
        Behavior<Object> onConnectTimeout() {
            return failed(new ConnectException("connect to " + command.remoteAddress() + " timed out after "
                    + command.timeout().orElseThrow()));
        }

        private void stopTimeout() {
            if (timeout != null) {
                timeout.cancel();
            }
        }

        private Behavior<Object> failed(Throwable cause) {
            stopTimeout();
            answered = true;
            socket.closeOnStop(writes);
            command.handler().tell(new CommandFailed(command, cause));
            return Behaviors.stopped();
        }

        @Override
        void onStop() {
            stopTimeout();
            socket.closeOnStop(writes);
            if (!answered) {
                command.handler().tell(new CommandFailed(command,
                        new IllegalStateException("the connection's actor stopped while it connected")));
            }
        }
    }

    /**
     * The phases in which the socket is open and its handler (or owner) may be told of it: the answers of the
     * socket, writes and timeouts mean the same in each; what a phase reads, takes and does at a close differs.
     */
    private abstract class Live extends Phase {
        /** What this phase wants of reading. */
        abstract ReadSide.Wanted readingWanted();

        /** Why a write is refused in this phase, or null: it is taken. */
        abstract Exception writesRefused();

        /** A CloseCommand. */
        abstract Behavior<Object> onClose(CloseCommand command);

        /** The peer's end of stream was read. */
        abstract Behavior<Object> onEndOfStream();

        /** What the phase does once every write is sent: nothing, unless it waits for that. */
        Behavior<Object> whenWritesDone() {
            return this;
        }

        /** This phase begins: what it does if the writes are done already, else reading as it wants. */
        final Behavior<Object> enter() {
            if (writes.isEmpty()) {
                Behavior<Object> next = whenWritesDone();
                if (next != this) {
                    return next;
                }
            }
            reading.apply(readingWanted(), handler());
            return this;
        }

        @Override
        Behavior<Object> onCommand(ConnectionCommand command) {
            if (command instanceof WriteCommand w) {
                return write(w);
            } else if (command instanceof ReadControl control) {
                reading.suspend(control == ReadControl.SUSPEND_READING);
                reading.apply(readingWanted(), handler());
                return this;
            } else if (command instanceof CloseCommand close) {
                return onClose(close);
            } else if (command instanceof Register r) {
                return onRegister(r);
            }
            return this;
        }

        Behavior<Object> onRegister(Register r) {
            return this; // one registers once
        }

        private Behavior<Object> write(WriteCommand w) {
            Exception refused = writesRefused();
            if (refused == null) {
                refused = writes.refusal(w, socket);
            }
            if (refused != null) {
                return refuse(w, refused);
            }
            writes.add(w, socket);
            sendNext();
            return this;
        }

        private void sendNext() {
            if (!socket.sending() && !writes.isEmpty()) {
                socket.send(writes);
            }
        }

        @Override
        Behavior<Object> onSocket(SocketEvent event) {
            if (event instanceof SocketEvent.DataReceived data) {
                touch();
                handler().tell(new Received(data.data()));
                return this;
            } else if (event == SocketEvent.ReceiveStopped.INSTANCE) {
                reading.apply(readingWanted(), handler());
                return this;
            } else if (event == SocketEvent.EndOfStream.INSTANCE) {
                reading.ended();
                return onEndOfStream();
            } else if (event instanceof SocketEvent.Sent sent) {
                touch();
                writes.sent(sent.bytes(), socket, handler());
                sendNext();
                return writes.isEmpty() ? whenWritesDone() : this;
            } else if (event instanceof SocketEvent.FileUnreadable unreadable) {
                // The peer has part of what it was told to expect, so nothing may follow.
                handler().tell(new CommandFailed(writes.head(), unreadable.cause()));
                return closing(new ErrorClosed(unreadable.cause().getMessage()), false);
            } else if (event instanceof SocketEvent.Failed failed) {
                return closing(new ErrorClosed(failed.reason()), false);
            }
            return this;
        }

        @Override
        Behavior<Object> onIdleCheck() {
            if (System.nanoTime() - lastActivity > tcp.idleTimeout().toNanos()) {
                return closing(new ErrorClosed("idle timeout: no data either way for " + tcp.idleTimeout()),
                        false);
            }
            return this;
        }

        @Override
        Behavior<Object> onHandlerStopped() {
            return closing(Closed.INSTANCE, false); // nobody reads or writes it any more
        }
    }

    /** The phases before a close begins: writes are taken, and a close begins one. */
    private abstract class TakingWrites extends Live {
        @Override
        Exception writesRefused() {
            return null;
        }

        @Override
        Behavior<Object> onClose(CloseCommand command) {
            if (command == CloseCommand.ABORT) {
                return closing(Aborted.INSTANCE, true); // a reset; what is queued is dropped, as asked
            } else if (command == CloseCommand.CLOSE || reading.isEnded()) {
                return new ClosingAfterWrites(command == CloseCommand.CLOSE ? Closed.INSTANCE
                        : ConfirmedClosed.INSTANCE).enter();
            }
            return new ShuttingDownAfterWrites().enter();
        }
    }

    /** Connected and announced; no handler yet, so nothing is read. Writes are taken. */
    private final class AwaitingRegistration extends TakingWrites {
        @Override
        ReadSide.Wanted readingWanted() {
            return ReadSide.Wanted.NONE;
        }

        @Override
        Behavior<Object> onEndOfStream() {
            return new ClosingAfterWrites(PeerClosed.INSTANCE).enter();
        }

        @Override
        Behavior<Object> onRegister(Register r) {
            stopRegisterTimeout();
            handler = r.handler();
            ctx.watch(handler); // a death pact, as in Pekko IO: the handler stops, the connection closes
            keepOpenOnPeerClosed = r.keepOpenOnPeerClosed();
            return new Open().enter();
        }

        @Override
        Behavior<Object> onRegisterTimeout() {
            return closing(new ErrorClosed("no handler registered within " + tcp.registerTimeout()
                    + " (uring.tcp.register-timeout)"), false);
        }

        @Override
        Behavior<Object> onRegistrationHeld(boolean held) {
            if (!held) {
                startRegisterTimeout();
            }
            return this;
        }
    }

    /** Reading (unless suspended) and writing. */
    private final class Open extends TakingWrites {
        @Override
        ReadSide.Wanted readingWanted() {
            return ReadSide.Wanted.UNLESS_SUSPENDED;
        }

        @Override
        Behavior<Object> onEndOfStream() {
            if (keepOpenOnPeerClosed) {
                handler().tell(PeerClosed.INSTANCE);
                return new HalfOpen().enter();
            }
            return new ClosingAfterWrites(PeerClosed.INSTANCE).enter(); // as Pekko IO: send what is queued, close
        }
    }

    /** The peer shut down its side; the handler asked to keep ours open for writing. */
    private final class HalfOpen extends TakingWrites {
        @Override
        ReadSide.Wanted readingWanted() {
            return ReadSide.Wanted.NONE;
        }

        @Override
        Behavior<Object> onEndOfStream() {
            return this;
        }
    }

    /**
     * A close has begun: what is queued is sent first; no more writes are taken, and only an abort changes the
     * close (as in Pekko IO): a reset now, with what is still queued dropped.
     */
    private abstract class AfterWrites extends Live {
        @Override
        Exception writesRefused() {
            return new IllegalStateException("the connection is closing");
        }

        @Override
        Behavior<Object> onClose(CloseCommand command) {
            return command == CloseCommand.ABORT ? closing(Aborted.INSTANCE, true) : this;
        }
    }

    /** A close asked for (or the peer's end of stream without keep-open): what is queued is sent, then the close. */
    private final class ClosingAfterWrites extends AfterWrites {
        private final ConnectionClosed event;

        ClosingAfterWrites(ConnectionClosed event) {
            this.event = event;
            endEvent = event;
        }

        @Override
        ReadSide.Wanted readingWanted() {
            return ReadSide.Wanted.UNLESS_SUSPENDED;
        }

        @Override
        Behavior<Object> onEndOfStream() {
            return this; // its own close follows the writes
        }

        @Override
        Behavior<Object> whenWritesDone() {
            return closing(event, false);
        }
    }

    /** A confirmed close asked for: what is queued is sent, then our side is shut down. */
    private final class ShuttingDownAfterWrites extends AfterWrites {
        @Override
        ReadSide.Wanted readingWanted() {
            return ReadSide.Wanted.UNLESS_SUSPENDED;
        }

        @Override
        Behavior<Object> onEndOfStream() {
            // Both sides are done once the writes are: no shutdown needed.
            return new ClosingAfterWrites(ConfirmedClosed.INSTANCE).enter();
        }

        @Override
        Behavior<Object> whenWritesDone() {
            socket.shutdownOutput();
            return new AwaitingPeerClose().enter();
        }
    }

    /** Our side is shut down; the peer's end of stream is awaited, registered or not, suspended or not. */
    private final class AwaitingPeerClose extends AfterWrites {
        @Override
        ReadSide.Wanted readingWanted() {
            return ReadSide.Wanted.ALWAYS;
        }

        @Override
        Behavior<Object> onEndOfStream() {
            return closing(ConfirmedClosed.INSTANCE, false);
        }
    }

    /**
     * Ends the connection with {@code event}: the socket cancels what is in flight ({@code abort}: with a reset)
     * and closes; its Closed brings the event.
     */
    private Behavior<Object> closing(ConnectionClosed event, boolean abort) {
        endEvent = event;
        if (timers != null) {
            timers.cancelAll();
        }
        stopRegisterTimeout();
        socket.close(abort, writes);
        return new Closing();
    }

    /** The socket is closing: what comes now is its answers, and commands the connection no longer takes. */
    private final class Closing extends Phase {
        @Override
        Behavior<Object> onCommand(ConnectionCommand command) {
            return command instanceof WriteCommand w
                    ? refuse(w, new IllegalStateException("the connection is closing")) : this;
        }

        @Override
        Behavior<Object> onSocket(SocketEvent event) {
            if (event == SocketEvent.Closed.INSTANCE) {
                tellEnd(endEvent);
                return Behaviors.stopped();
            }
            return this;
        }
    }
}
