package dev.uringactors.actors.internal.tcp.pekko;

import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.file.jdk.JdkFiles;
import dev.uringactors.actors.internal.tcp.WriteRequests;
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
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;
import org.apache.pekko.util.ByteString;
import scala.concurrent.duration.FiniteDuration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Iterator;

/**
 * A connection's socket under the JDK backend: Pekko IO's connection actor, with the connection's actor as its
 * handler (registered at once, so Pekko's own register timeout never applies, and always keeping the connection
 * open on the peer's close, so that what is queued still goes out). Pekko's events come to the connection's
 * actor, and mean here what a ring's completions mean there. It is in Pekko's pull mode: it reads one
 * {@code pekko.io.tcp.direct-buffer-size} each time it is asked, which it does after each read while receiving.
 * (Pekko's other mode reads on, at each wake-up, for as long as the socket has a full buffer's worth: with peers
 * that kept it full, a handler that had suspended reading got tens of MB held for it.) Writes go to Pekko one
 * batch at a time: the queued writes as one, or a piece of a {@link WriteFile} of {@code uring.tcp.file-chunk}
 * (at most {@code uring.buffers.max-io-size}) read through {@link UringFiles}.
 */
final class PekkoSocket implements SocketIo {
    /** Pekko has written a batch of {@code bytes} in memory. */
    private record Written(long bytes) implements Tcp.Event {
    }

    /**
     * A piece of {@code file}, the head write with {@code headSent} of its bytes sent, was read (or the read
     * failed); {@code prefix} goes before it.
     */
    private record FileRead(WriteFile file, long headSent, ByteString prefix, ByteString data, Throwable failure) {
    }

    /** Pekko's connection had ended when the connection closed it: closed all the same. */
    private enum ClosedBefore { INSTANCE }

    /** Where the socket is in its life: open, closing as the connection asked, or Pekko's connection ended. */
    private enum State { OPEN, CLOSING, ENDED }

    private final ActorContext<Object> ctx;
    private final ActorRef self;
    private final ActorSystem<?> system;
    private final UringSettings.Tcp tcp;
    private final int ring;
    /** {@code uring.buffers.max-io-size}: the most a file piece read takes at once, as the file backend allows. */
    private final int maxIoSize;
    /** Pekko's connection actor; null until an outgoing one is connected. */
    private ActorRef pekko;
    /** The receive is wanted: each read asks for the next. */
    private boolean receiving;
    /** A read was asked of Pekko and has not come yet. */
    private boolean readAsked;
    /** A batch or file piece is with Pekko, or a file piece is being read. */
    private boolean sending;
    /** CLOSING: Pekko's end of the connection is what the connection asked for. */
    private State state = State.OPEN;

    private PekkoSocket(ActorContext<Object> ctx, ActorRef pekko, UringSettings.Tcp tcp, int ring, int maxIoSize) {
        this.ctx = ctx;
        this.self = Adapter.toClassic(ctx.getSelf());
        this.system = ctx.getSystem();
        this.pekko = pekko;
        this.tcp = tcp;
        this.ring = ring;
        this.maxIoSize = maxIoSize;
    }

    /** A connection Pekko accepted ({@code pekko} is its connection actor), announced to {@code owner}. */
    static Behavior<Object> accepted(org.apache.pekko.actor.typed.ActorRef<Event> owner, ActorRef pekko,
                                     Tcp.Connected connected, int ring, UringSettings.Tcp tcp, int maxIoSize) {
        return Connection.accepted(tcp, owner, setup -> new PekkoSocket(setup.ctx(), pekko, tcp, ring, maxIoSize),
                connected.remoteAddress(), connected.localAddress(), e -> pekko.tell(TcpMessage.abort(),
                        ActorRef.noSender()));
    }

    /** A connection to open through Pekko's Tcp, for {@code connect}. */
    static Behavior<Object> outgoing(TcpProtocol.Connect connect, int ring, UringSettings.Tcp tcp, int maxIoSize) {
        return Connection.connecting(tcp, connect, setup -> {
            if (connect.remoteAddress().isUnresolved()) { // as on a ring: no name lookup here
                throw PekkoOptions.unresolved(connect.remoteAddress());
            }
            connect.localAddress().ifPresent(PekkoSocket::checkBindable);
            PekkoSocket socket = new PekkoSocket(setup.ctx(), null, tcp, ring, maxIoSize);
            // No timeout for Pekko: the connection keeps the Connect's, on both backends alike.
            Tcp.get(Adapter.toClassic(setup.ctx().getSystem())).manager().tell(TcpMessage.connect(
                    connect.remoteAddress(), connect.localAddress().orElse(null),
                    PekkoOptions.of(tcp, connect.options().socketOptions()), (FiniteDuration) null, true),
                    socket.self);
            return socket;
        });
    }

    /**
     * Fails as a ring's bind would for a local address this machine cannot bind. Pekko's outgoing connection binds
     * in its constructor, and a failure there stops it without a CommandFailed (or a close of its channel): the
     * Connect would never be answered. So the address is tried on a socket of our own first.
     */
    private static void checkBindable(InetSocketAddress local) {
        try (Socket probe = new Socket()) {
            probe.bind(local);
        } catch (IOException e) {
            Throwable cause = PekkoOptions.asRingWouldSay(e, "bind " + local);
            throw cause instanceof RuntimeException r ? r : new UncheckedIOException(e);
        }
    }

    @Override
    public int ring() {
        return ring;
    }

    /** Pekko's connection is watched and registered; in pull mode it reads nothing until asked. */
    @Override
    public void opened() {
        ctx.watch(Adapter.toTyped(pekko));
        pekko.tell(TcpMessage.register(self, true, false), self);
    }

    // ---- reading

    @Override
    public void receive(org.apache.pekko.actor.typed.ActorRef<Event> handler) {
        receiving = true;
        askRead();
    }

    private void askRead() {
        if (receiving && !readAsked && state != State.ENDED) {
            readAsked = true;
            pekko.tell(TcpMessage.resumeReading(), self);
        }
    }

    /** A read asked for already still comes, and goes to the handler. */
    @Override
    public void stopReceiving() {
        receiving = false;
    }

    // ---- writing

    @Override
    public boolean sending() {
        return sending;
    }

    @Override
    public Exception fileRefusal(WriteFile file) {
        return WriteRequests.fileRefusal(file, JdkFiles.get(system).openFiles()::isOpen);
    }

    @Override
    public void queueFull() {
    }

    /** The rest of the head write and the whole writes behind it as one batch, or the head file's next piece. */
    @Override
    public void send(WriteQueue writes) {
        sending = true;
        if (writes.head() instanceof WriteFile file) {
            readPiece(file, writes.headSent());
            return;
        }
        Iterator<WriteCommand> queued = writes.iterator();
        ByteString batch = ((Write) queued.next()).data().drop((int) writes.headSent());
        while (queued.hasNext() && queued.next() instanceof Write w) {
            batch = batch.concat(w.data());
        }
        pekko.tell(TcpMessage.write(batch, new Written(batch.size())), self);
    }

    /** The part of the header not sent yet, then up to a chunk of the file. */
    private void readPiece(WriteFile file, long headSent) {
        int headerSize = file.header().size();
        long fileSent = Math.max(0, headSent - headerSize);
        ByteString prefix = headSent < headerSize ? file.header().drop((int) headSent) : ByteString.emptyByteString();
        int length = (int) Math.min(Math.min(tcp.fileChunk(), maxIoSize), file.count() - fileSent);
        org.apache.pekko.actor.typed.ActorRef<Object> connection = ctx.getSelf();
        UringFiles.get(system).read(file.file(), file.position() + fileSent, length)
                .whenComplete((data, failure) -> connection.tell(new FileRead(file, headSent, prefix, data,
                        failure)));
    }

    private SocketEvent fileRead(FileRead read) {
        if (state != State.OPEN) {
            sending = false; // the piece is not wanted any more
            return null;
        }
        if (read.failure() != null || read.data().isEmpty()) {
            sending = false;
            Throwable failure = read.failure();
            Exception cause = failure instanceof Exception e ? e
                    : failure != null ? new IllegalStateException(failure)
                    : WriteRequests.fileEnded(read.file(), Math.max(0, read.headSent() - read.file().header().size()));
            return new SocketEvent.FileUnreadable(cause);
        }
        ByteString piece = read.prefix().concat(read.data());
        pekko.tell(TcpMessage.write(piece, new Written(piece.size())), self);
        return null;
    }

    /** A WriteFile with closeAfter owns its file: it closes it once it is done with it, however it ends. */
    @Override
    public void closeOwnedFile(WriteFile file) {
        if (file.closeAfter()) {
            UringFiles.get(system).close(file.file());
        }
    }

    // ---- closing

    @Override
    public void shutdownOutput() {
        pekko.tell(TcpMessage.confirmedClose(), self); // Pekko reads on until the peer's end of stream
    }

    @Override
    public void close(boolean abort, WriteQueue writes) {
        writes.discard(this::closeOwnedFile);
        if (state == State.ENDED || pekko == null) {
            ctx.getSelf().tell(ClosedBefore.INSTANCE);
        } else {
            pekko.tell(abort ? TcpMessage.abort() : TcpMessage.close(), self);
        }
        if (state == State.OPEN) {
            state = State.CLOSING;
        }
    }

    /** Pekko's connection, whose handler the connection's actor is, closes as that actor stops. */
    @Override
    public void closeOnStop(WriteQueue writes) {
        writes.discard(this::closeOwnedFile);
    }

    // ---- answers

    @Override
    public SocketEvent interpret(Object message) {
        if (message instanceof Tcp.Received r) {
            readAsked = false;
            askRead();
            return new SocketEvent.DataReceived(r.data());
        } else if (message instanceof Written w) {
            sending = false;
            return new SocketEvent.Sent(w.bytes());
        } else if (message instanceof FileRead read) {
            return fileRead(read);
        } else if (message == Tcp.PeerClosed$.MODULE$) {
            return SocketEvent.EndOfStream.INSTANCE;
        } else if (message instanceof Tcp.ConnectionClosed closed) {
            return ended(closed);
        } else if (message == ClosedBefore.INSTANCE) {
            return SocketEvent.Closed.INSTANCE;
        } else if (message instanceof Tcp.Connected connected) {
            pekko = Adapter.toClassic(ctx).sender(); // Pekko's connection actor
            return new SocketEvent.Connected(connected.remoteAddress(), connected.localAddress());
        } else if (message instanceof Tcp.CommandFailed f) {
            return commandFailed(f);
        } else if (message instanceof Terminated t && pekko != null && t.getRef().equals(Adapter.toTyped(pekko))) {
            State was = end();
            return was == State.ENDED ? null : was == State.CLOSING ? SocketEvent.Closed.INSTANCE
                    : new SocketEvent.Failed("Pekko's connection actor stopped");
        }
        return null;
    }

    private SocketEvent commandFailed(Tcp.CommandFailed f) {
        if (f.cmd() instanceof Tcp.Connect) {
            return new SocketEvent.ConnectFailed(PekkoOptions.causeOf(f, "connect "
                    + ((Tcp.Connect) f.cmd()).remoteAddress()));
        } else if (f.cmd() instanceof Tcp.Write) {
            sending = false; // nothing after it may go out: the connection ends, as a ring's on a failed send
            return state != State.OPEN ? null : new SocketEvent.Failed(PekkoOptions.causeOf(f, "send").getMessage());
        }
        return null;
    }

    /** Pekko's connection has ended: as the connection asked, or at the peer's or an error's doing. */
    private SocketEvent ended(Tcp.ConnectionClosed event) {
        State was = end();
        if (was == State.ENDED) {
            return null;
        } else if (was == State.CLOSING) {
            return SocketEvent.Closed.INSTANCE;
        } else if (event.isConfirmed() || event.isPeerClosed()) {
            return SocketEvent.EndOfStream.INSTANCE; // the connection closes next, and hears Closed at once
        } else if (event.isErrorClosed()) {
            return new SocketEvent.Failed(PekkoOptions.closedCause(event.getErrorCause()));
        }
        return new SocketEvent.Failed("Pekko closed the connection: " + event);
    }

    /** Pekko's connection has ended (or its actor stopped); returns the state before. */
    private State end() {
        State was = state;
        state = State.ENDED;
        return was;
    }
}
