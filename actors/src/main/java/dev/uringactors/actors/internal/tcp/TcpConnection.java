package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.file.FileRings;
import dev.uringactors.actors.internal.file.OpenFiles;
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
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Pipe;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.util.ByteString;

import java.io.EOFException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * One TCP connection, running on its ring's thread and issuing its own requests there: a multishot recv that
 * hands data to the handler, one send in flight with the rest queued, and a close that first cancels every
 * request on the socket and waits for their final completions, so that no buffer the kernel may still read is
 * reused and no request keeps the socket alive.
 *
 * <p>Its life is a sequence of {@link Phase}s, and reading has states of its own ({@link Reading}): each event
 * means one thing in each of them. The fd is this actor's from its first instruction: a failure anywhere, in
 * setup or later, ends in close(2), through the ring when it can take it and directly when it cannot.
 */
public final class TcpConnection {
    sealed interface Internal extends ConnectionCommand permits RecvEnded, SendDone, FileUnreadable, ConnectDone,
            CloseDone, IdleCheck, RegisterTimeout, HoldRegistration, RingClosed {
    }

    /** The multishot recv ended: res > 0 or ENOBUFS re-arm, 0 end of stream, else an error or cancellation. */
    record RecvEnded(int res) implements Internal {
    }

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

    /** The register time-out started {@code number}-th: one that was cancelled after it fired is stale. */
    record RegisterTimeout(int number) implements Internal {
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

    /** Where the connection is in its life. */
    enum Phase {
        /** Connected; no handler yet, so nothing is read. */
        AWAITING_REGISTRATION,
        /** Reading (unless suspended) and writing. */
        OPEN,
        /** The peer shut down its side; the handler asked to keep ours open for writing. */
        PEER_CLOSED,
        /** Close asked for (or the peer's end of stream without keep-open): what is queued is sent first. */
        CLOSING_AFTER_WRITES,
        /** A confirmed close: our side is shut down; waiting for the peer's end of stream. */
        AWAITING_PEER_CLOSE,
        /** Done: cancelling what is in flight, then closing the fd, then telling the handler the final event. */
        CLOSING
    }

    /** The reading side: whether a recv is in flight, and whether it is being cancelled. */
    enum Reading {
        /** No recv in flight. */
        IDLE,
        /** A multishot recv is in flight. */
        ARMED,
        /** A cancel of the recv is in flight; the recv's final completion is still to come. */
        CANCELLING
    }

    private final ActorContext<ConnectionCommand> ctx;
    private final RingLoop loop;
    private final UringSettings.Tcp tcp;
    private final int fd;
    private final ActorRef<Event> owner;
    private final TimerScheduler<ConnectionCommand> timers;
    private final ArrayDeque<WriteCommand> queue = new ArrayDeque<>();
    private Phase phase = Phase.AWAITING_REGISTRATION;
    private Reading reading = Reading.IDLE;
    private ActorRef<Event> handler;
    private boolean keepOpenOnPeerClosed;
    private boolean suspended;
    private boolean peerEnded;
    private TcpOps.MultishotRecv recv;
    /** The piece of the queue's head write in flight, or null. */
    private TcpOps.Sending sending;
    /** Bytes of the queue's head write already sent. */
    private long headSent;
    /** The pipe that file pieces are spliced through, opened with the first one. */
    private Pipe pipe;
    /** Bytes of the queued writes, which are held in memory (a WriteFile's are not). */
    private long queuedBytes;
    private long lastActivity = System.nanoTime();
    /** With CLOSING_AFTER_WRITES: whether the close is a confirmed one (shut down our side, wait for the peer). */
    private boolean confirmed;
    /** The event a graceful close ends with, once the queued writes are sent (Closed, or PeerClosed). */
    private ConnectionClosed closeEvent = Closed.INSTANCE;
    private ConnectionClosed finalEvent;
    private boolean closeIssued;
    /** Whether the connection was announced (and counted open on its ring). */
    private boolean announced;
    /** The register timeout, cancelled by Register. */
    private Cancellable registerTimeout;
    /** Register time-outs started so far; only the last one counts. */
    private int registerTimeouts;
    private OpenFiles openFiles;
    /** Hears of the ring's end, as long as the fd is open. */
    private final Consumer<RingEvent> ringEvents;

    /** {@code timers} is null unless an idle timeout is configured (a timer scheduler per connection costs). */
    private TcpConnection(ActorContext<ConnectionCommand> ctx, TimerScheduler<ConnectionCommand> timers,
                          RingLoop loop, UringSettings.Tcp tcp, int fd, ActorRef<Event> owner) {
        this.ctx = ctx;
        this.timers = timers;
        this.loop = loop;
        this.tcp = tcp;
        this.fd = fd;
        this.owner = owner;
        ActorRef<ConnectionCommand> self = ctx.getSelf();
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
                                                InetSocketAddress localAddress, ActorRef<ListenerCommand> listener) {
        return owningFd(fd, tcp, e -> listener.tell(TcpListener.NotHandedOut.INSTANCE), (ctx, timers) ->
                new TcpConnection(ctx, timers, loop, tcp, fd, bindHandler).announce(remoteAddress, localAddress));
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
                        Sockets.close(fd);
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
            TcpConnection c = new TcpConnection(ctx, timers, loop, tcp, fd, command.handler());
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
                        c.closeNow();
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
        closeNow();
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
        announced = true;
        owner.tell(new TcpProtocol.Connected(remoteAddress, localAddress, ctx.getSelf(), loop.index()));
        // One behavior object with a type test per message: cheaper to build per connection than a builder.
        return Behaviors.receive((context, m) -> onMessage(m), (context, signal) -> {
            if (signal instanceof PostStop) {
                closeNow();
            } else if (signal instanceof Terminated && phase != Phase.CLOSING) {
                return finish(Closed.INSTANCE); // its handler stopped: nobody reads or writes it any more
            }
            return Behaviors.same();
        });
    }

    private Behavior<ConnectionCommand> onMessage(ConnectionCommand m) {
        if (m instanceof SendDone done) {
            return sendDone(done.res());
        } else if (m instanceof Write w) {
            return write(w);
        } else if (m instanceof WriteFile w) {
            return writeFile(w);
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
        } else if (m instanceof CloseDone) {
            loop.unsubscribe(ringEvents);
            handler().tell(finalEvent);
            return Behaviors.stopped();
        } else if (m instanceof RingClosed closed) {
            return phase == Phase.CLOSING ? Behaviors.same()
                    : finish(new ErrorClosed("ring " + loop.index() + " is closed: " + closed.cause().getMessage()));
        } else if (m instanceof IdleCheck) {
            return idleCheck();
        } else if (m instanceof HoldRegistration hold && phase == Phase.AWAITING_REGISTRATION) {
            registerTimeout.cancel();
            if (!hold.held()) {
                startRegisterTimeout();
            }
            return Behaviors.same();
        } else if (m instanceof RegisterTimeout t && t.number() == registerTimeouts
                && phase == Phase.AWAITING_REGISTRATION) {
            return finish(new ErrorClosed("no handler registered within " + tcp.registerTimeout()
                    + " (uring.tcp.register-timeout)"));
        }
        return Behaviors.unhandled(); // ConnectDone after connecting
    }

    private void startRegisterTimeout() {
        registerTimeout = ctx.scheduleOnce(tcp.registerTimeout(), ctx.getSelf(),
                new RegisterTimeout(++registerTimeouts));
    }

    private ActorRef<Event> handler() {
        return handler != null ? handler : owner;
    }

    // ---- reading

    private Behavior<ConnectionCommand> register(Register r) {
        if (phase == Phase.AWAITING_REGISTRATION) {
            registerTimeout.cancel();
            handler = r.handler();
            ctx.watch(handler); // a death pact, as in Pekko IO: the handler stops, the connection closes
            keepOpenOnPeerClosed = r.keepOpenOnPeerClosed();
            phase = Phase.OPEN;
            readIfWanted();
        }
        return Behaviors.same();
    }

    /** Reading is wanted while someone reads and the peer may still send; a confirmed close reads to see the end. */
    private boolean wantsReading() {
        return !peerEnded && switch (phase) {
            case OPEN, CLOSING_AFTER_WRITES -> !suspended;
            case AWAITING_PEER_CLOSE -> true;
            case AWAITING_REGISTRATION, PEER_CLOSED, CLOSING -> false;
        };
    }

    private void readIfWanted() {
        if (reading == Reading.IDLE && wantsReading()) {
            Runnable onData = tcp.idleTimeout() == null ? () -> { } : () -> lastActivity = System.nanoTime();
            recv = new TcpOps.MultishotRecv(fd, TcpRing.of(loop).recvBuffers(), handler(), ctx.getSelf(), onData);
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
        reading = Reading.IDLE;
        recv = null;
        if (phase == Phase.CLOSING) {
            return closeWhenIdle();
        }
        if (res == -Errno.ENOBUFS) {
            TcpRing.of(loop).counters().recvBufferShortage();
        }
        if (res > 0 || res == -Errno.ENOBUFS || (res == -Errno.ECANCELED && cancelledHere)) {
            // Stopped with data left to read, for lack of buffers, or cancelled by us: go on if wanted.
            readIfWanted();
            return Behaviors.same();
        }
        if (res == 0) {
            return peerEnded();
        }
        return fail(res);
    }

    private Behavior<ConnectionCommand> peerEnded() {
        peerEnded = true;
        switch (phase) {
            case AWAITING_PEER_CLOSE:
                return finish(ConfirmedClosed.INSTANCE);
            case OPEN:
                if (keepOpenOnPeerClosed) {
                    phase = Phase.PEER_CLOSED;
                    handler().tell(PeerClosed.INSTANCE);
                    return Behaviors.same();
                }
                closeEvent = PeerClosed.INSTANCE; // as Pekko IO: send what is queued, then close
                return closeAfterWrites(false);
            default: // CLOSING_AFTER_WRITES: its own close follows the writes
                return Behaviors.same();
        }
    }

    // ---- writing

    private boolean closing() {
        return phase == Phase.CLOSING_AFTER_WRITES || phase == Phase.AWAITING_PEER_CLOSE || phase == Phase.CLOSING;
    }

    private Behavior<ConnectionCommand> write(Write w) {
        if (taken(w, w.data().size())) {
            enqueue(w, w.data().size());
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> writeFile(WriteFile w) {
        if (!openFiles().isOpen(w.file())) {
            handler().tell(new CommandFailed(w, new ClosedChannelException())); // closed: its fd is not ours to use
        } else if (w.position() < 0 || w.count() < 0 || w.file().direct() || w.file().registered()) {
            handler().tell(new CommandFailed(w, new IllegalArgumentException("WriteFile of " + w.count()
                    + " bytes at " + w.position() + " of " + w.file().path() + ": the position and count must not "
                    + "be negative, and the file not opened with O_DIRECT or REGISTERED")));
            releaseFile(w);
        } else if (!taken(w, w.header().size())) {
            releaseFile(w);
        } else if (w.count() == 0) {
            releaseFile(w);
            enqueue(new Write(w.header(), w.ack()), w.header().size());
        } else {
            enqueue(w, w.header().size());
        }
        return Behaviors.same();
    }

    /** The table of files open through the actors, which a WriteFile's file must be in; looked up at its first. */
    private OpenFiles openFiles() {
        if (openFiles == null) {
            openFiles = FileRings.get(ctx.getSystem()).openFiles();
        }
        return openFiles;
    }

    /**
     * Closes the file of a WriteFile that gave it to this connection, once no request of it is in flight (or
     * after their cancel): through the ring on its thread (directly where the ring can no longer take it), and
     * directly off it, once the loop has ended.
     */
    private void releaseFile(WriteCommand w) {
        if (w instanceof WriteFile file && file.closeAfter() && openFiles().closing(file.file())) {
            if (loop.inLoop()) {
                loop.issuer().issue(TcpOps.close(file.file().fd()));
            } else {
                Sockets.close(file.file().fd());
            }
        }
    }

    /**
     * Whether a write holding {@code bytes} in memory may queue: not while closing, and not beyond
     * max-write-queue behind other writes (a write on an empty queue is taken whatever its size).
     */
    private boolean taken(WriteCommand w, long bytes) {
        if (closing()) {
            handler().tell(new CommandFailed(w, new IllegalStateException("the connection is closing")));
            return false;
        }
        if (!queue.isEmpty() && queuedBytes + bytes > tcp.maxWriteQueue()) {
            TcpRing.of(loop).counters().writeRefused();
            handler().tell(new CommandFailed(w, new IllegalStateException("write queue full: " + queuedBytes
                    + " bytes wait to be sent (uring.tcp.max-write-queue = " + tcp.maxWriteQueue()
                    + "); wait for acknowledgements before writing more")));
            return false;
        }
        return true;
    }

    private void enqueue(WriteCommand w, long bytesInMemory) {
        queuedBytes += bytesInMemory;
        queue.add(w);
        if (sending == null) {
            sendNextPiece();
        }
    }

    private static long inMemory(WriteCommand w) {
        return w instanceof Write write ? write.data().size() : ((WriteFile) w).header().size();
    }

    /**
     * Sends the next piece of the head write: at most {@code uring.buffers.max-io-size} bytes of native memory,
     * or for a file at most {@code uring.tcp.file-chunk}.
     */
    private void sendNextPiece() {
        WriteCommand head = queue.peek();
        sending = head instanceof WriteFile file ? nextFilePiece(file) : sendPiece(((Write) head).data(), headSent);
        loop.issuer().issue(sending);
    }

    private TcpOps.Send sendPiece(ByteString data, long from) {
        int max = loop.issuer().maxIoSize();
        ByteString piece = from == 0 && data.size() <= max
                ? data : data.slice((int) from, (int) Math.min(data.size(), from + max));
        boolean zeroCopy = tcp.zeroCopyThreshold() >= 0 && piece.size() >= tcp.zeroCopyThreshold();
        return new TcpOps.Send(fd, piece, zeroCopy, ctx.getSelf());
    }

    /**
     * A piece of a WriteFile: spliced when it is large enough (after the header, which then goes first on its
     * own), else read after what is left of the header and sent with it.
     */
    private TcpOps.Sending nextFilePiece(WriteFile file) {
        int headerSize = file.header().size();
        long fileSent = Math.max(0, headSent - headerSize);
        int length = (int) Math.min(tcp.fileChunk(), file.count() - fileSent);
        long position = file.position() + fileSent;
        boolean splice = tcp.spliceThreshold() >= 0 && length >= tcp.spliceThreshold();
        if (splice && headSent < headerSize) {
            return sendPiece(file.header(), headSent);
        }
        if (splice && pipe == null) {
            pipe = openPipe();
        }
        if (splice && pipe != null) {
            return new TcpOps.SpliceFile(fd, file.file().fd(), position, Math.min(length, pipe.capacity()), pipe,
                    ctx.getSelf());
        }
        ByteString headerLeft = headSent < headerSize ? file.header().drop((int) headSent)
                : ByteString.emptyByteString();
        return new TcpOps.SendFile(fd, file.file().fd(), position, length, headerLeft, ctx.getSelf());
    }

    /** A pipe to splice through, or null when none can be had (no fds left): the file is then read and sent. */
    private Pipe openPipe() {
        try {
            return Pipe.open(tcp.fileChunk());
        } catch (UringException e) {
            ctx.getLog().debug("no pipe to splice through ({}): reading and sending instead", e.getMessage());
            return null;
        }
    }

    /**
     * The file of the head WriteFile could not give the bytes promised: the peer has part of what it was told
     * to expect, so nothing may follow; the handler hears why, and the connection closes.
     */
    private Behavior<ConnectionCommand> fileUnreadable(int res) {
        sending = null;
        if (phase == Phase.CLOSING) {
            return closeWhenIdle();
        }
        WriteFile head = (WriteFile) queue.peek();
        String path = head.file().path().toString();
        long fileSent = Math.max(0, headSent - head.header().size());
        Exception cause = res == 0
                ? new EOFException(path + ": the file ended at byte " + (head.position() + fileSent) + ", short of the "
                        + head.count() + " bytes from " + head.position() + " that were to be sent")
                : UringException.ofResult(Opcode.READ, res, path, 0);
        handler().tell(new CommandFailed(head, cause));
        return finish(new ErrorClosed(cause.getMessage()));
    }

    private Behavior<ConnectionCommand> sendDone(int res) {
        sending = null;
        if (phase == Phase.CLOSING) {
            return closeWhenIdle();
        }
        if (res < 0) {
            return fail(res);
        }
        lastActivity = System.nanoTime();
        headSent += res;
        WriteCommand head = queue.peek();
        if (headSent < head.byteCount()) {
            sendNextPiece();
            return Behaviors.same();
        }
        queue.poll();
        headSent = 0;
        queuedBytes -= inMemory(head);
        releaseFile(head);
        if (head.ack() != null) {
            handler().tell(head.ack());
        }
        if (!queue.isEmpty()) {
            sendNextPiece();
        } else if (phase == Phase.CLOSING_AFTER_WRITES) {
            return writesDone();
        }
        return Behaviors.same();
    }

    // ---- closing

    private Behavior<ConnectionCommand> close(CloseCommand command) {
        if (phase == Phase.CLOSING_AFTER_WRITES || phase == Phase.AWAITING_PEER_CLOSE || phase == Phase.CLOSING) {
            return Behaviors.same();
        }
        if (command == CloseCommand.ABORT) {
            Sockets.setLingerZero(fd); // close sends RST; what is queued is dropped, as the handler asked
            return finish(Aborted.INSTANCE);
        }
        closeEvent = Closed.INSTANCE;
        return closeAfterWrites(command == CloseCommand.CONFIRMED_CLOSE);
    }

    private Behavior<ConnectionCommand> closeAfterWrites(boolean confirm) {
        phase = Phase.CLOSING_AFTER_WRITES;
        confirmed = confirm;
        return sending == null ? writesDone() : Behaviors.same();
    }

    /** Everything queued is sent: close, or for a confirmed close shut down our side and wait for the peer's. */
    private Behavior<ConnectionCommand> writesDone() {
        if (!confirmed) {
            return finish(closeEvent);
        }
        if (peerEnded) {
            return finish(ConfirmedClosed.INSTANCE);
        }
        loop.issuer().issue(TcpOps.unanswered(Opcode.SHUTDOWN, sqe -> sqe.prepShutdown(fd, OpFlags.SHUT_WR)));
        phase = Phase.AWAITING_PEER_CLOSE;
        readIfWanted(); // the peer's end of stream must be seen, registered or not, suspended or not
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> idleCheck() {
        if (phase != Phase.CLOSING && System.nanoTime() - lastActivity > tcp.idleTimeout().toNanos()) {
            return finish(new ErrorClosed("idle timeout: no data either way for " + tcp.idleTimeout()));
        }
        return Behaviors.same();
    }

    private Behavior<ConnectionCommand> fail(int res) {
        // Nothing here cancels a request of an open connection but its ring failing or shutting down.
        return finish(new ErrorClosed(res == -Errno.ECANCELED ? "ring " + loop.index() + " failed or shut down"
                : Errno.name(res) + " (" + Errno.describe(res) + ")"));
    }

    /** Cancels every request on the socket; the close follows once their final completions are in. */
    private Behavior<ConnectionCommand> finish(ConnectionClosed event) {
        phase = Phase.CLOSING;
        finalEvent = event;
        if (timers != null) {
            timers.cancelAll();
        }
        if (registerTimeout != null) {
            registerTimeout.cancel();
        }
        cancelInFlight();
        return closeWhenIdle();
    }

    /** Cancels every request on the socket; a send stops where it is instead of going on with the rest. */
    private void cancelInFlight() {
        if (sending != null) {
            sending.stop();
        }
        if (recv != null || sending != null) {
            loop.issuer().issue(TcpOps.unanswered(Opcode.ASYNC_CANCEL,
                    sqe -> sqe.prepCancelFd(fd, OpFlags.ASYNC_CANCEL_ALL)));
        }
    }

    private Behavior<ConnectionCommand> closeWhenIdle() {
        if (recv == null && sending == null && !closeIssued) {
            closeIssued = true;
            countClosed();
            if (pipe != null) {
                pipe.close(); // nothing is in flight: no splice can still look up its ends
            }
            queue.forEach(this::releaseFile); // what was not sent gives back the files it was given
            queue.clear();
            ActorRef<ConnectionCommand> self = ctx.getSelf();
            loop.issuer().issue(TcpOps.close(fd, res -> self.tell(new CloseDone(res))));
        }
        return Behaviors.same();
    }

    /** The fd is being closed: the ring has one connection less (counted on its thread, while it turns). */
    private void countClosed() {
        if (announced && loop.inLoop()) {
            TcpRing.of(loop).counters().connectionClosed();
        }
    }

    /**
     * Stopped from outside (its parent, the system shutting down, a failure): close without waiting for anyone.
     * On the loop thread through the ring (which closes directly once it is shut down); off it the loop has
     * ended and its ring is drained, so close(2) runs here.
     */
    private void closeNow() {
        loop.unsubscribe(ringEvents);
        if (closeIssued) {
            return;
        }
        closeIssued = true;
        countClosed();
        if (loop.inLoop()) {
            cancelInFlight();
            loop.issuer().issue(TcpOps.close(fd));
            if (pipe != null) { // after the cancel: a splice still queued could otherwise find another file there
                loop.issuer().issue(TcpOps.close(pipe.readEnd()));
                loop.issuer().issue(TcpOps.close(pipe.writeEnd()));
            }
        } else {
            Sockets.close(fd);
            if (pipe != null) {
                pipe.close();
            }
        }
        queue.forEach(this::releaseFile);
        queue.clear();
    }
}
