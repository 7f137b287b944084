package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.file.FileRings;
import dev.uringactors.actors.internal.file.OpenFiles;
import dev.uringactors.actors.internal.issue.SimpleOp;
import dev.uringactors.actors.internal.loop.RingEvent;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.actors.internal.tcp.conn.Connection;
import dev.uringactors.actors.internal.tcp.conn.SocketEvent;
import dev.uringactors.actors.internal.tcp.conn.SocketIo;
import dev.uringactors.actors.internal.tcp.conn.WriteQueue;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Pipe;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;

import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A connection's socket on a ring, its requests issued on the ring's thread: a multishot receive that hands data
 * straight to the handler, one piece of the write queue in flight (at most {@code uring.tcp.write-chunk} bytes
 * copied to native memory, or a file piece spliced through a pipe or read and sent), and a close that first
 * cancels every request on the socket and waits for their final completions, so that no buffer the kernel may
 * still read is reused and no request keeps the socket alive. The fd is the socket's from its first instruction:
 * a failure anywhere ends in close(2), through the ring when it can take it and directly when it cannot.
 */
final class RingSocket implements SocketIo {
    /**
     * The multishot recv ended: res > 0 (its limit reached, or data left), ENOBUFS, or EINVAL for a limit the
     * kernel refuses re-arm; 0 end of stream; else an error or our cancellation. Or it had no result: its ring
     * closed under it.
     */
    record RecvEnded(int res, boolean ringClosed) {
    }

    /** What the piece in flight answers when it did not send: {@link SocketEvent.Sent} is its answer when it did. */
    sealed interface PieceAnswer permits SendFailed, FileUnreadable {
    }

    /** The piece in flight failed with {@code res}; or it had no result: its ring closed under it. */
    record SendFailed(int res, boolean ringClosed) implements PieceAnswer {
    }

    /** A WriteFile's read failed ({@code res} < 0) or found the end of the file (0) before its count. */
    record FileUnreadable(int res) implements PieceAnswer {
    }

    /** The CONNECT completed with {@code res}; or it had none, its ring having failed or shut down under it. */
    record ConnectDone(int res, Throwable ringFailure, InetSocketAddress remoteAddress) {
    }

    private enum CloseDone { INSTANCE }

    /** The ring closed for good (it failed too often, or the system shuts down): close without it. */
    private record RingClosed(RuntimeException cause) {
    }

    /** Where the socket is in its life. */
    private enum State { OPEN, CLOSING, CLOSED }

    /** The receive: none in flight, one in flight, or one being cancelled (its final completion still to come). */
    private enum Receiving { IDLE, ARMED, CANCELLING }

    private final RingLoop loop;
    private final UringSettings.Tcp tcp;
    private final int fd;
    private final ActorRef<Object> self;
    private final Logger log;
    private final ActorSystem<?> system;
    private final Runnable onData;
    /** Told as the socket starts closing: an accepted connection's place on its ring is free from then on. */
    private final Runnable socketClosing;
    /** Hears of the ring's end, as long as the fd is open. */
    private final Consumer<RingEvent> ringEvents;
    private State state = State.OPEN;
    private Receiving receiving = Receiving.IDLE;
    private TcpOps.MultishotRecv recv;
    /** The piece of the head write in flight, or null. */
    private TcpOps.Sending inFlight;
    /** The plain send, reused from one piece to the next: one at a time is in flight, and it ends with its answer. */
    private TcpOps.Send plainSend;
    /** An outgoing connection's CONNECT is in flight: a close before it completes cancels it. */
    private boolean connectInFlight;
    /** The queue the piece in flight came from: its head is the write a FileUnreadable is about. */
    private WriteQueue sendingFrom;
    /** The pipe that file pieces are spliced through, opened with the first one. */
    private Pipe pipe;
    /** The table of files open through the actors, which a WriteFile's file must be in; looked up at its first. */
    private OpenFiles openFiles;
    /** Handed out: counted among the ring's connections. */
    private boolean counted;

    private RingSocket(Connection.SocketSetup setup, RingLoop loop, UringSettings.Tcp tcp, int fd,
                       Runnable socketClosing) {
        this.loop = loop;
        this.tcp = tcp;
        this.fd = fd;
        this.self = setup.ctx().getSelf();
        this.log = setup.ctx().getLog();
        this.system = setup.ctx().getSystem();
        this.onData = tcp.idleTimeout() == null ? () -> { } : setup.onData();
        this.socketClosing = socketClosing;
        this.ringEvents = RingEvent.whenClosed(closed -> self.tell(new RingClosed(closed.cause())));
    }

    /**
     * A connection the listener accepted on {@code fd}: tells {@code bindHandler} it is connected, then waits for
     * Register. TCP_NODELAY comes from the listening socket. If its setup fails, the fd is closed and {@code listener}
     * gets back the accept credit it spent.
     */
    static Behavior<Object> accepted(RingLoop loop, UringSettings.Tcp tcp, int fd, ActorRef<Event> bindHandler,
                                     InetSocketAddress remoteAddress, InetSocketAddress localAddress,
                                     ActorRef<TcpProtocol.ListenerCommand> listener, Runnable socketClosing) {
        return Connection.accepted(tcp, bindHandler, setup -> owning(fd,
                        () -> new RingSocket(setup, loop, tcp, fd, socketClosing)), remoteAddress, localAddress,
                e -> listener.tell(TcpListener.NotHandedOut.INSTANCE));
    }

    /**
     * An outgoing connection: connects through the ring; its handler hears Connected, or CommandFailed when
     * anything before that fails (the socket, its setup, binding the local address, the CONNECT, its timeout, or
     * a peer that reset at once).
     */
    static Behavior<Object> connecting(RingLoop loop, UringSettings.Tcp tcp, TcpProtocol.Connect command) {
        return Connection.connecting(tcp, command, setup -> {
            int fd = Sockets.connectionSocket(command.remoteAddress());
            return owning(fd, () -> {
                if (tcp.noDelay()) {
                    Sockets.setOption(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
                }
                command.options().applyTo(fd); // after no-delay: an option given here has the last word
                command.localAddress().ifPresent(local -> Sockets.bind(fd, local));
                RingSocket socket = new RingSocket(setup, loop, tcp, fd, () -> { });
                socket.connect(command.remoteAddress());
                return socket;
            });
        });
    }

    /** Runs {@code make}; if it throws, closes {@code fd} first: no failure in setup leaks it. */
    private static RingSocket owning(int fd, Supplier<RingSocket> make) {
        try {
            return make.get();
        } catch (RuntimeException e) {
            Descriptors.close(fd);
            throw e;
        }
    }

    private void connect(InetSocketAddress remoteAddress) {
        TcpOps.Connect connect = new TcpOps.Connect(fd, remoteAddress, self);
        loop.subscribe(ringEvents);
        connectInFlight = true;
        loop.issuer().issue(connect);
    }

    @Override
    public int ring() {
        return loop.index();
    }

    @Override
    public void opened() {
        loop.subscribe(ringEvents); // again, for an outgoing one: a set
        TcpRing.of(loop).counters().connectionOpened();
        counted = true;
    }

    // ---- reading

    @Override
    public void receive(ActorRef<Event> handler) {
        if (receiving != Receiving.IDLE || state != State.OPEN) {
            return; // while a cancel is in flight, the recv's end re-arms it if reading is wanted by then
        }
        TcpRing tcpRing = TcpRing.of(loop);
        if (!tcpRing.isOpen()) { // it closed after the connection was made: end as its RingClosed ends it
            self.tell(new RingClosed(new IllegalStateException("it closed before the connection read")));
            return;
        }
        recv = new TcpOps.MultishotRecv(fd, tcpRing.recvBuffers(), tcpRing.recvLimit(), handler, self, onData);
        loop.issuer().issue(recv);
        receiving = Receiving.ARMED;
    }

    @Override
    public void stopReceiving() {
        if (receiving == Receiving.ARMED) {
            loop.issuer().issue(SimpleOp.cancel(recv.userData()));
            receiving = Receiving.CANCELLING;
        }
    }

    private SocketEvent recvEnded(RecvEnded ended) {
        int res = ended.res();
        boolean cancelledHere = receiving == Receiving.CANCELLING;
        boolean limitRefused = res == -Errno.EINVAL && recv != null && recv.limit() > 0;
        receiving = Receiving.IDLE;
        recv = null;
        if (state != State.OPEN) {
            closeWhenIdle();
            return null;
        }
        if (ended.ringClosed()) {
            return ringGone();
        }
        if (res == -Errno.ENOBUFS) {
            TcpRing.of(loop).counters().recvBufferShortage();
        }
        if (limitRefused) {
            TcpRing.of(loop).recvLimitRefused(log);
        }
        if (res > 0 || res == -Errno.ENOBUFS || (res == -Errno.ECANCELED && cancelledHere) || limitRefused) {
            // Stopped at its limit or with data left to read, for lack of buffers, cancelled by us, or refused
            // its limit by the kernel: armed again if wanted.
            return SocketEvent.ReceiveStopped.INSTANCE;
        }
        return res == 0 ? SocketEvent.EndOfStream.INSTANCE : failed(res);
    }

    private static SocketEvent failed(int res) {
        return new SocketEvent.Failed(Errno.name(res) + " (" + Errno.describe(res) + ")");
    }

    private SocketEvent ringGone() {
        return new SocketEvent.Failed("ring " + loop.index() + " failed or shut down");
    }

    // ---- writing

    @Override
    public boolean sending() {
        return inFlight != null;
    }

    @Override
    public Exception fileRefusal(WriteFile file) {
        return WriteRequests.fileRefusal(file, openFiles()::isOpen);
    }

    @Override
    public void queueFull() {
        TcpRing.of(loop).counters().writeRefused();
    }

    @Override
    public void send(WriteQueue writes) {
        sendingFrom = writes;
        WriteCommand head = writes.head();
        inFlight = head instanceof WriteFile file ? nextFilePiece(file, writes.headSent())
                : nextWritePiece(writes);
        loop.issuer().issue(inFlight);
    }

    /**
     * The rest of the head write, or its next piece; with room left in the piece, the whole writes queued behind
     * it too, as Pekko IO coalesces them: a stream of small writes (HTTP/2's frames, say) goes out in one send per
     * turn instead of one send a turn each.
     */
    private TcpOps.Send nextWritePiece(WriteQueue writes) {
        int max = pieceSize();
        ByteString head = ((Write) writes.head()).data();
        int headSent = (int) writes.headSent();
        ByteString piece = head.size() - headSent <= max ? head.drop(headSent)
                : head.slice(headSent, headSent + max);
        Iterator<WriteCommand> behind = writes.iterator();
        behind.next(); // the head
        while (piece.size() < max && behind.hasNext() && behind.next() instanceof Write next
                && piece.size() + next.data().size() <= max) {
            piece = piece.concat(next.data());
        }
        return send(piece);
    }

    /** The most bytes of a piece copied to native memory: {@code write-chunk}, or less where requests take less. */
    private int pieceSize() {
        return Math.min(tcp.writeChunk(), loop.issuer().maxIoSize());
    }

    private TcpOps.Send send(ByteString piece) {
        boolean zeroCopy = tcp.zeroCopyThreshold() >= 0 && piece.size() >= tcp.zeroCopyThreshold();
        if (zeroCopy) {
            return new TcpOps.Send(fd, piece, true, self);
        }
        if (plainSend == null) {
            plainSend = new TcpOps.Send(fd, piece, false, self);
        } else {
            plainSend.renew(piece);
        }
        return plainSend;
    }

    /**
     * A piece of a WriteFile: spliced when it is large enough (after the header, which then goes first on its
     * own), else read after what is left of the header and sent with it.
     */
    private TcpOps.Sending nextFilePiece(WriteFile file, long headSent) {
        int headerSize = file.header().size();
        long fileSent = Math.max(0, headSent - headerSize);
        int length = (int) Math.min(tcp.fileChunk(), file.count() - fileSent);
        long position = file.position() + fileSent;
        boolean splice = tcp.spliceThreshold() >= 0 && length >= tcp.spliceThreshold();
        if (splice && headSent < headerSize) {
            return send(file.header().slice((int) headSent, (int) Math.min(headerSize, headSent + pieceSize())));
        }
        if (splice && pipe == null) {
            pipe = openPipe();
        }
        if (splice && pipe != null) {
            return new TcpOps.SpliceFile(fd, file.file().fd(), position, Math.min(length, pipe.capacity()), pipe,
                    TcpRing.of(loop).linksFilePieces(), self);
        }
        ByteString headerLeft = headSent < headerSize ? file.header().drop((int) headSent)
                : ByteString.emptyByteString();
        return new TcpOps.SendFile(fd, file.file().fd(), position, length, headerLeft,
                TcpRing.of(loop).linksFilePieces(), self);
    }

    /** A pipe to splice through, or null when none can be had (no fds left): the file is then read and sent. */
    private Pipe openPipe() {
        try {
            return Pipe.open(tcp.fileChunk());
        } catch (UringException e) {
            log.debug("no pipe to splice through ({}): reading and sending instead", e.getMessage());
            return null;
        }
    }

    /** The piece in flight has ended: its answer goes to the connection, unless the socket is closing. */
    private boolean pieceEnded() {
        inFlight = null;
        if (state != State.OPEN) {
            closeWhenIdle();
            return false;
        }
        return true;
    }

    private SocketEvent pieceAnswered(PieceAnswer answer) {
        if (!pieceEnded()) {
            return null;
        }
        if (answer instanceof FileUnreadable unreadable) {
            WriteFile head = (WriteFile) sendingFrom.head();
            long headSent = sendingFrom.headSent();
            return new SocketEvent.FileUnreadable(unreadable.res() == 0
                    ? WriteRequests.fileEnded(head, Math.max(0, headSent - head.header().size()))
                    : UringException.ofResult(Opcode.READ, unreadable.res(), head.file().path().toString(), 0));
        }
        SendFailed failed = (SendFailed) answer;
        return failed.ringClosed() ? ringGone() : failed(failed.res());
    }

    /**
     * Closes the file of a WriteFile that gave it to this connection, once no request of it is in flight (or
     * after their cancel): through the ring on its thread, and directly off it, once the loop has ended. A file
     * closed already is not ours to close again.
     */
    @Override
    public void closeOwnedFile(WriteFile file) {
        if (file.closeAfter() && openFiles().closing(file.file())) {
            if (loop.inLoop()) {
                loop.issuer().issue(TcpOps.close(file.file().fd()));
            } else {
                Descriptors.close(file.file().fd());
            }
        }
    }

    private OpenFiles openFiles() {
        if (openFiles == null) {
            openFiles = FileRings.get(system).openFiles();
        }
        return openFiles;
    }

    // ---- closing

    @Override
    public void shutdownOutput() {
        loop.issuer().issue(TcpOps.unanswered(Opcode.SHUTDOWN, sqe -> sqe.prepShutdown(fd, OpFlags.SHUT_WR)));
    }

    @Override
    public void close(boolean abort, WriteQueue writes) {
        if (state != State.OPEN) {
            return;
        }
        if (abort) {
            Sockets.setLingerZero(fd); // close sends RST
        }
        state = State.CLOSING;
        sendingFrom = writes;
        cancelInFlight();
        closeWhenIdle();
    }

    /** Cancels every request on the socket; a send stops where it is instead of going on with the rest. */
    private void cancelInFlight() {
        if (inFlight != null) {
            inFlight.stop();
        }
        if (recv != null || inFlight != null || connectInFlight) {
            loop.issuer().issue(TcpOps.unanswered(Opcode.ASYNC_CANCEL,
                    sqe -> sqe.prepCancelFd(fd, OpFlags.ASYNC_CANCEL_ALL)));
        }
    }

    /** Closes the fd once nothing is in flight on it; what was not sent gives back the files it was given. */
    private void closeWhenIdle() {
        if (state == State.CLOSING && recv == null && inFlight == null) {
            countClosed();
            state = State.CLOSED;
            discard(sendingFrom);
            loop.issuer().issue(TcpOps.close(fd, () -> self.tell(CloseDone.INSTANCE)));
        }
    }

    /**
     * Stopped from outside: close without waiting for anyone. On the loop thread through the ring (which closes
     * directly once it is shut down); off it the loop has ended and its ring is drained, so close(2) runs here.
     */
    @Override
    public void closeOnStop(WriteQueue writes) {
        loop.unsubscribe(ringEvents);
        if (state == State.CLOSED) {
            return;
        }
        countClosed();
        state = State.CLOSED;
        if (loop.inLoop()) {
            cancelInFlight();
            loop.issuer().issue(TcpOps.close(fd));
        } else {
            Descriptors.close(fd);
        }
        discard(writes);
    }

    /**
     * The pipe is closed and the files of the writes not sent are given back. With a request that may still use
     * the pipe (a cancelled splice not yet completed), its ends are closed through the ring, behind the cancel;
     * with none, or off the loop's thread (its ring drained), at once.
     */
    private void discard(WriteQueue writes) {
        if (pipe != null) {
            if (inFlight != null && loop.inLoop()) {
                loop.issuer().issue(TcpOps.close(pipe.readEnd()));
                loop.issuer().issue(TcpOps.close(pipe.writeEnd()));
            } else {
                pipe.close();
            }
            pipe = null;
        }
        if (writes != null) {
            writes.discard(this::closeOwnedFile);
        }
    }

    /**
     * The fd is being closed: the ring has one connection less, if it was handed out (counted on its thread,
     * while it turns), and its bind may place the next one there.
     */
    private void countClosed() {
        socketClosing.run();
        if (counted && loop.inLoop()) {
            TcpRing.of(loop).counters().connectionClosed();
        }
    }

    // ---- answers

    @Override
    public SocketEvent interpret(Object message) {
        if (message instanceof RecvEnded ended) {
            return recvEnded(ended);
        } else if (message instanceof SocketEvent.Sent sent) {
            return pieceEnded() ? sent : null;
        } else if (message instanceof PieceAnswer answer) {
            return pieceAnswered(answer);
        } else if (message instanceof ConnectDone done) {
            return connectDone(done);
        } else if (message instanceof RingClosed closed) {
            return state != State.OPEN ? null
                    : new SocketEvent.Failed("ring " + loop.index() + " is closed: " + closed.cause().getMessage());
        } else if (message instanceof CloseDone) {
            loop.unsubscribe(ringEvents);
            return SocketEvent.Closed.INSTANCE;
        }
        return null;
    }

    /** The CONNECT completed: connected, or why not. */
    private SocketEvent connectDone(ConnectDone done) {
        connectInFlight = false;
        if (done.ringFailure() != null) {
            return new SocketEvent.ConnectFailed(done.ringFailure());
        }
        try {
            if (done.res() >= 0) { // getpeername says ENOTCONN for a peer that reset already: the connect failed
                return new SocketEvent.Connected(Sockets.remoteAddress(fd), Sockets.localAddress(fd));
            }
            return new SocketEvent.ConnectFailed(UringException.ofResult(Opcode.CONNECT, done.res(),
                    done.remoteAddress().toString(), 0));
        } catch (RuntimeException e) {
            return new SocketEvent.ConnectFailed(e);
        }
    }
}
