package dev.uringactors.actors;

import dev.uringactors.actors.TcpProtocol.Aborted;
import dev.uringactors.actors.TcpProtocol.CloseCommand;
import dev.uringactors.actors.TcpProtocol.Closed;
import dev.uringactors.actors.TcpProtocol.CommandFailed;
import dev.uringactors.actors.TcpProtocol.ConfirmedClosed;
import dev.uringactors.actors.TcpProtocol.ConnectionClosed;
import dev.uringactors.actors.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.TcpProtocol.Event;
import dev.uringactors.actors.TcpProtocol.PeerClosed;
import dev.uringactors.actors.TcpProtocol.ReadControl;
import dev.uringactors.actors.TcpProtocol.Register;
import dev.uringactors.actors.TcpProtocol.Write;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * One TCP connection, running on its ring's thread and issuing its own requests there: a multishot recv that
 * hands data to the handler, one send in flight with the rest queued (bounded), and a close that first cancels
 * every request on the socket and waits for their final completions, so that no buffer the kernel may still
 * read is reused and no request keeps the socket alive.
 */
final class TcpConnection {
    sealed interface Internal extends ConnectionCommand permits RecvEnded, SendDone, ConnectDone, CloseDone,
            IdleCheck {
    }

    /** The multishot recv ended: res > 0 or ENOBUFS re-arm, 0 end of stream, else an error or cancellation. */
    record RecvEnded(int res) implements Internal {
    }

    record SendDone(int res) implements Internal {
    }

    record ConnectDone(int res) implements Internal {
    }

    record CloseDone(int res) implements Internal {
    }

    enum IdleCheck implements Internal { INSTANCE }

    private final ActorContext<ConnectionCommand> ctx;
    private final RingLoop loop;
    private final UringSettings.Tcp tcp;
    private final int fd;
    private final ActorRef<Event> owner;
    private final TimerScheduler<ConnectionCommand> timers;
    private final ArrayDeque<Write> queue = new ArrayDeque<>();
    private ActorRef<Event> handler;
    private boolean keepOpenOnPeerClosed;
    private boolean readingSuspended;
    private TcpOps.MultishotRecv recv;
    private Write sending;
    private long queuedBytes;
    private long lastActivity = System.nanoTime();
    private CloseCommand closing;
    /** The event a graceful close ends with, once the queued writes are sent (Closed, or PeerClosed). */
    private ConnectionClosed closeEvent = Closed.INSTANCE;
    private ConnectionClosed finalEvent;
    private boolean closeIssued;

    /** {@code timers} is null unless an idle timeout is configured (a timer scheduler per connection costs). */
    private TcpConnection(ActorContext<ConnectionCommand> ctx, TimerScheduler<ConnectionCommand> timers,
                          RingLoop loop, UringSettings.Tcp tcp, int fd, ActorRef<Event> owner) {
        this.ctx = ctx;
        this.timers = timers;
        this.loop = loop;
        this.tcp = tcp;
        this.fd = fd;
        this.owner = owner;
    }

    /**
     * A connection the listener accepted: tells {@code bindHandler} it is connected, then waits for Register.
     * {@code localAddress} is the listener's address when it is a specific one (then the connection's too), or
     * null to ask the kernel. TCP_NODELAY comes from the listening socket.
     */
    static Behavior<ConnectionCommand> accepted(RingLoop loop, UringSettings.Tcp tcp, int fd,
                                                ActorRef<Event> bindHandler, InetSocketAddress localAddress) {
        return withTimersIfIdle(tcp, (ctx, timers) ->
                new TcpConnection(ctx, timers, loop, tcp, fd, bindHandler).announce(localAddress));
    }

    private static Behavior<ConnectionCommand> withTimersIfIdle(UringSettings.Tcp tcp,
            java.util.function.BiFunction<ActorContext<ConnectionCommand>, TimerScheduler<ConnectionCommand>,
                    Behavior<ConnectionCommand>> start) {
        return tcp.idleTimeout() == null
                ? Behaviors.setup(ctx -> start.apply(ctx, null))
                : Behaviors.setup(ctx -> Behaviors.withTimers(timers -> start.apply(ctx, timers)));
    }

    /** An outgoing connection: connects through the ring, then tells {@code handler} Connected or CommandFailed. */
    static Behavior<ConnectionCommand> connecting(RingLoop loop, UringSettings.Tcp tcp,
                                                  TcpProtocol.Connect command) {
        return withTimersIfIdle(tcp, (ctx, timers) -> {
            int fd;
            try {
                fd = Sockets.tcpSocket(command.remoteAddress());
                if (tcp.noDelay()) {
                    Sockets.setOption(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
                }
            } catch (UringException e) {
                command.handler().tell(new CommandFailed(command, e));
                return Behaviors.stopped();
            }
            TcpConnection c = new TcpConnection(ctx, timers, loop, tcp, fd, command.handler());
            NativeBuffer sockaddr = NativeBuffer.allocate(Sockets.SOCKADDR_SIZE);
            int len = Sockets.encode(command.remoteAddress(), sockaddr);
            ActorRef<ConnectionCommand> self = ctx.getSelf();
            loop.issuer().issue(new TcpOps.Simple(Opcode.CONNECT, sqe -> sqe.prepConnect(fd, sockaddr.address(), len),
                    sockaddr, res -> self.tell(new ConnectDone(res))));
            return Behaviors.receive(ConnectionCommand.class)
                    .onMessage(ConnectDone.class, done -> {
                        if (done.res() < 0) {
                            Sockets.close(fd);
                            command.handler().tell(new CommandFailed(command, UringException.ofResult(
                                    Opcode.CONNECT, done.res(), command.remoteAddress().toString(), 0)));
                            return Behaviors.stopped();
                        }
                        return c.announce(null);
                    })
                    .build();
        });
    }

    private Behavior<ConnectionCommand> announce(InetSocketAddress localAddress) {
        owner.tell(new TcpProtocol.Connected(Sockets.remoteAddress(fd),
                localAddress != null ? localAddress : Sockets.localAddress(fd), ctx.getSelf(), loop.index()));
        if (timers != null) {
            timers.startTimerWithFixedDelay(IdleCheck.INSTANCE, tcp.idleTimeout().dividedBy(2));
        }
        // One behavior object with a type test per message: cheaper to build per connection than a builder.
        return Behaviors.receive((context, m) -> onMessage(m), (context, signal) -> {
            if (signal instanceof PostStop) {
                postStop();
            }
            return Behaviors.same();
        });
    }

    private Behavior<ConnectionCommand> onMessage(ConnectionCommand m) {
        if (m instanceof SendDone done) {
            return sendDone(done);
        } else if (m instanceof Write w) {
            return write(w);
        } else if (m instanceof RecvEnded ended) {
            return recvEnded(ended);
        } else if (m instanceof Register r) {
            return register(r);
        } else if (m instanceof ReadControl control) {
            return readControl(control);
        } else if (m instanceof CloseCommand close) {
            return close(close);
        } else if (m instanceof CloseDone done) {
            return closeDone(done);
        } else if (m instanceof IdleCheck tick) {
            return idleCheck(tick);
        }
        return Behaviors.unhandled(); // ConnectDone after connecting
    }

    private ActorRef<Event> handler() {
        return handler != null ? handler : owner;
    }

    private Behavior<ConnectionCommand> register(Register r) {
        if (handler == null && finalEvent == null) {
            handler = r.handler();
            keepOpenOnPeerClosed = r.keepOpenOnPeerClosed();
            armRecv();
        }
        return Behaviors.same();
    }

    private void armRecv() {
        Runnable onData = tcp.idleTimeout() == null ? () -> { } : () -> lastActivity = System.nanoTime();
        recv = new TcpOps.MultishotRecv(fd, loop.issuer().recvBuffers(), handler(), ctx.getSelf(), onData);
        loop.issuer().issue(recv);
    }

    private Behavior<ConnectionCommand> readControl(ReadControl control) {
        boolean suspend = control == ReadControl.SUSPEND_READING;
        if (suspend == readingSuspended || handler == null || finalEvent != null) {
            return Behaviors.same();
        }
        readingSuspended = suspend;
        if (suspend && recv != null) {
            long userData = recv.userData;
            loop.issuer().issue(new TcpOps.Simple(Opcode.ASYNC_CANCEL, sqe -> sqe.prepCancel(userData, 0), null,
                    res -> { }));
        } else if (!suspend && recv == null) {
            armRecv();
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> write(Write w) {
        if (closing != null || finalEvent != null) {
            handler().tell(new CommandFailed(w, new IllegalStateException("the connection is closing")));
        } else if (queuedBytes + w.data().size() > tcp.maxWriteQueue()) {
            handler().tell(new CommandFailed(w, new IllegalStateException("write queue full: " + queuedBytes
                    + " bytes wait to be sent (uring.tcp.max-write-queue = " + tcp.maxWriteQueue()
                    + "); wait for acknowledgements before writing more")));
        } else {
            queue.add(w);
            queuedBytes += w.data().size();
            if (sending == null) {
                sendNext();
            }
        }
        return Behaviors.same();
    }

    private void sendNext() {
        sending = queue.poll();
        boolean zeroCopy = tcp.zeroCopyThreshold() >= 0 && sending.data().size() >= tcp.zeroCopyThreshold();
        loop.issuer().issue(new TcpOps.Send(fd, sending.data(), zeroCopy, loop.issuer().buffers(), ctx.getSelf()));
    }

    private Behavior<ConnectionCommand> sendDone(SendDone done) {
        Write w = sending;
        sending = null;
        queuedBytes -= w.data().size();
        if (finalEvent != null) {
            return closeWhenIdle();
        }
        if (done.res() < 0) {
            return fail(done.res());
        }
        lastActivity = System.nanoTime();
        if (w.ack() != null) {
            handler().tell(w.ack());
        }
        if (!queue.isEmpty()) {
            sendNext();
        } else if (closing != null) {
            return closeAfterWrites();
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> recvEnded(RecvEnded ended) {
        recv = null;
        int res = ended.res();
        if (finalEvent != null) {
            return closeWhenIdle();
        }
        if (res > 0 || res == -Errno.ENOBUFS || (res == -Errno.ECANCELED && readingSuspended)) {
            if (!readingSuspended) {
                armRecv(); // the multishot recv stopped with data left to read, or for lack of buffers: go on
            }
            return Behaviors.same();
        }
        if (res == 0) {
            if (closing == CloseCommand.CONFIRMED_CLOSE) {
                return finish(ConfirmedClosed.INSTANCE);
            }
            if (keepOpenOnPeerClosed) {
                handler().tell(PeerClosed.INSTANCE);
                return Behaviors.same();
            }
            if (closing == null) { // as Pekko IO: send what is queued, then close
                closing = CloseCommand.CLOSE;
                closeEvent = PeerClosed.INSTANCE;
                return sending == null ? closeAfterWrites() : Behaviors.same();
            }
            return Behaviors.same();
        }
        return fail(res);
    }

    private Behavior<ConnectionCommand> close(CloseCommand command) {
        if (closing != null || finalEvent != null) {
            return Behaviors.same();
        }
        closing = command;
        if (command == CloseCommand.ABORT) {
            queue.clear();
            Sockets.setLingerZero(fd); // close sends RST
            return finish(Aborted.INSTANCE);
        }
        return sending == null ? closeAfterWrites() : Behaviors.same();
    }

    /** Everything queued is sent: close, or for a confirmed close shut down our side and wait for the peer's. */
    private Behavior<ConnectionCommand> closeAfterWrites() {
        if (closing == CloseCommand.CLOSE) {
            return finish(closeEvent);
        }
        loop.issuer().issue(new TcpOps.Simple(Opcode.SHUTDOWN, sqe -> sqe.prepShutdown(fd, OpFlags.SHUT_WR), null,
                res -> { }));
        if (recv == null) {
            armRecv(); // never registered: read only to see the peer's end of stream
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> idleCheck(IdleCheck tick) {
        if (finalEvent == null && System.nanoTime() - lastActivity > tcp.idleTimeout().toNanos()) {
            return finish(new ErrorClosed("idle timeout: no data either way for " + tcp.idleTimeout()));
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> fail(int res) {
        return finish(new ErrorClosed(Errno.name(res) + " (" + Errno.describe(res) + ")"));
    }

    /** Cancels every request on the socket; the close follows once their final completions are in. */
    private Behavior<ConnectionCommand> finish(ConnectionClosed event) {
        finalEvent = event;
        if (timers != null) {
            timers.cancelAll();
        }
        queue.clear();
        if (recv != null || sending != null) {
            loop.issuer().issue(new TcpOps.Simple(Opcode.ASYNC_CANCEL,
                    sqe -> sqe.prepCancelFd(fd, OpFlags.ASYNC_CANCEL_ALL), null, res -> { }));
        }
        return closeWhenIdle();
    }

    private Behavior<ConnectionCommand> closeWhenIdle() {
        if (recv == null && sending == null && !closeIssued) {
            closeIssued = true;
            ActorRef<ConnectionCommand> self = ctx.getSelf();
            loop.issuer().issue(new TcpOps.Simple(Opcode.CLOSE, sqe -> sqe.prepClose(fd), null,
                    res -> self.tell(new CloseDone(res))));
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> closeDone(CloseDone done) {
        handler().tell(finalEvent);
        return Behaviors.stopped();
    }

    /** Stopped from outside (the system shutting down): cancel and close without waiting for anyone. */
    private void postStop() {
        if (!closeIssued && loop.inLoop()) {
            closeIssued = true;
            loop.issuer().issue(new TcpOps.Simple(Opcode.ASYNC_CANCEL,
                    sqe -> sqe.prepCancelFd(fd, OpFlags.ASYNC_CANCEL_ALL), null, res -> { }));
            loop.issuer().issue(new TcpOps.Simple(Opcode.CLOSE, sqe -> sqe.prepClose(fd), null, res -> { }));
        }
    }
}
