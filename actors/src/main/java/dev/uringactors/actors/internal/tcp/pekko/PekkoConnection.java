package dev.uringactors.actors.internal.tcp.pekko;

import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.file.jdk.JdkFiles;
import dev.uringactors.actors.internal.tcp.TcpConnection;
import dev.uringactors.actors.internal.tcp.WriteRequests;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ReadControl;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.AbstractActorWithTimers;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.Terminated;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;
import org.apache.pekko.util.ByteString;
import scala.concurrent.duration.FiniteDuration;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection under the JDK backend: Pekko IO's connection actor behind this library's
 * {@link TcpProtocol}, translating both ways, so that a handler gets the same events in the same order as on a
 * ring. Where the protocols differ, this actor makes up the difference: writes queue here (Pekko takes one at a
 * time) up to {@code uring.tcp.max-write-queue}, and consecutive ones go to Pekko as one; a {@link WriteFile}
 * goes a {@code uring.tcp.file-chunk} (at most {@code uring.buffers.max-io-size}) at a time, read through
 * {@link UringFiles}; the peer's end of stream without keep-open sends what is queued, then closes; the register
 * and idle timeouts of {@code uring.tcp} are kept here. Pekko's connection is registered at once, with this actor
 * as its handler (so Pekko's own register timeout never applies), always keeping the connection open on the
 * peer's close, so that what is queued here still goes out. It is in Pekko's pull mode: it reads one
 * {@code pekko.io.tcp.direct-buffer-size} each time this actor asks, which it does after each read while the
 * handler wants to read. (Pekko's other mode reads on, at each wake-up, for as long as the socket has a full
 * buffer's worth: with peers that kept it full, a handler that had suspended reading got tens of MB held for it.)
 */
final class PekkoConnection extends AbstractActorWithTimers {
    /**
     * Pekko has written a batch of {@code bytes} in memory, of {@code commands} (the first is blamed if it fails):
     * the handler's acknowledgements that it completes.
     */
    private record Written(long bytes, List<WriteCommand> commands, List<Event> acks) implements Tcp.Event {
    }

    /** A piece of the head {@link WriteFile} was read (or the read failed). */
    private record FileRead(ByteString data, Throwable failure) {
    }

    private enum Timeout { REGISTER, IDLE_CHECK }

    /** Who heard of the connection (the bind's or the connect's handler): it gets events until a Register. */
    private final org.apache.pekko.actor.typed.ActorRef<Event> owner;
    private final UringSettings.Tcp tcp;
    /** The outgoing connection's command, or null for an accepted one. */
    private final TcpProtocol.Connect connect;
    /** What Pekko said of the accepted connection, or null for an outgoing one. */
    private final Tcp.Connected accepted;
    private final int ring;
    /** {@code uring.buffers.max-io-size}: the most a file piece read takes at once, as the file backend allows. */
    private final int maxIoSize;
    private final ArrayDeque<WriteCommand> queue = new ArrayDeque<>();
    private ActorRef pekko;
    private org.apache.pekko.actor.typed.ActorRef<Event> handler;
    /** Bytes in memory taken and not yet written: writes' data and files' headers, queued here or with Pekko. */
    private long pendingBytes;
    /** A batch or file piece is with Pekko, or a file piece is being read. */
    private boolean sending;
    /** How much of the head WriteFile's file part has been read and handed on, while it is being sent. */
    private long fileSent = -1;
    private boolean keepOpenOnPeerClosed;
    /** The handler's SUSPEND_READING is in force (sent before its Register too): applied once it registers. */
    private boolean readingSuspended;
    /**
     * What Pekko read while no reading was wanted (the read asked for before the handler suspended), and the
     * peer's end of stream seen then: the handler's once it reads again.
     */
    private final List<ByteString> held = new ArrayList<>();
    private boolean peerClosedHeld;
    /** The handler (or the owner) has heard how the connection, or the connect, ended. */
    private boolean told;
    /** A CLOSE or CONFIRMED_CLOSE asked for (or the peer's close without keep-open): done once the queue is. */
    private CloseCommand closeAfterWrites;
    /** The peer closed and the handler did not ask to keep the connection open: it ends with PeerClosed. */
    private boolean peerClosedEnds;
    /** What the handler gets at the end in place of the event Pekko reports, or null. */
    private ConnectionClosed endEvent;
    private long lastActivity = System.nanoTime();

    private PekkoConnection(org.apache.pekko.actor.typed.ActorRef<Event> owner, TcpProtocol.Connect connect,
                            Tcp.Connected accepted, ActorRef pekko, int ring, UringSettings.Tcp tcp, int maxIoSize) {
        this.owner = owner;
        this.connect = connect;
        this.accepted = accepted;
        this.pekko = pekko;
        this.ring = ring;
        this.tcp = tcp;
        this.maxIoSize = maxIoSize;
    }

    /**
     * A connection Pekko accepted ({@code pekko} is its connection actor) for a bind in pull mode, announced to
     * {@code owner}.
     */
    static Props accepted(org.apache.pekko.actor.typed.ActorRef<Event> owner, ActorRef pekko, Tcp.Connected accepted,
                          int ring, UringSettings.Tcp tcp, int maxIoSize) {
        return Props.create(PekkoConnection.class,
                () -> new PekkoConnection(owner, null, accepted, pekko, ring, tcp, maxIoSize));
    }

    /** A connection to open, for {@code connect}. */
    static Props outgoing(TcpProtocol.Connect connect, int ring, UringSettings.Tcp tcp, int maxIoSize) {
        return Props.create(PekkoConnection.class,
                () -> new PekkoConnection(connect.handler(), connect, null, null, ring, tcp, maxIoSize));
    }

    @Override
    public void preStart() {
        if (connect != null && connect.remoteAddress().isUnresolved()) { // as on a ring: no name lookup here
            told = true;
            owner.tell(new CommandFailed(connect, PekkoOptions.unresolved(connect.remoteAddress())));
            getContext().stop(getSelf());
        } else if (connect != null) {
            Tcp.get(getContext().getSystem()).manager().tell(TcpMessage.connect(connect.remoteAddress(), null,
                    PekkoOptions.of(tcp, List.of()), (FiniteDuration) null, true), getSelf());
        } else {
            announce(accepted);
        }
    }

    /**
     * Tells the owner of the connection; its handler has {@code uring.tcp.register-timeout} to register. Pekko's
     * connection is registered now, so that its own register timeout never fires; in pull mode it reads nothing
     * until asked.
     */
    private void announce(Tcp.Connected c) {
        getContext().watch(pekko);
        pekko.tell(TcpMessage.register(getSelf(), true, false), getSelf());
        getTimers().startSingleTimer(Timeout.REGISTER, Timeout.REGISTER, tcp.registerTimeout());
        owner.tell(new TcpProtocol.Connected(c.remoteAddress(), c.localAddress(), Adapter.toTyped(getSelf()), ring));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                // from Pekko
                .match(Tcp.Connected.class, c -> {
                    pekko = getSender();
                    announce(c);
                })
                .match(Tcp.Received.class, this::received)
                .match(Written.class, this::written)
                .match(FileRead.class, this::fileRead)
                .match(Tcp.CommandFailed.class, this::commandFailed)
                .matchEquals(Tcp.PeerClosed$.MODULE$, p -> {
                    if (handler == null || readingSuspended) {
                        peerClosedHeld = true;
                    } else {
                        peerClosed();
                    }
                })
                .match(Tcp.ConnectionClosed.class, this::closed)
                .match(Terminated.class, this::terminated)
                // from the handler
                .match(Register.class, this::register)
                .match(WriteCommand.class, this::write)
                .match(ReadControl.class, this::readControl)
                .match(CloseCommand.class, this::close)
                .match(TcpConnection.HoldRegistration.class, this::holdRegistration)
                .matchEquals(Timeout.REGISTER, t -> endWith(new TcpProtocol.ErrorClosed("no handler registered "
                        + "within " + tcp.registerTimeout() + " (uring.tcp.register-timeout)")))
                .matchEquals(Timeout.IDLE_CHECK, t -> idleCheck())
                .build();
    }

    private org.apache.pekko.actor.typed.ActorRef<Event> handler() {
        return handler != null ? handler : owner;
    }

    // ---- reading

    private void received(Tcp.Received r) {
        lastActivity = System.nanoTime();
        if (handler == null || readingSuspended) {
            held.add(r.data());
        } else {
            handler.tell(new TcpProtocol.Received(r.data()));
            pekko.tell(TcpMessage.resumeReading(), getSelf()); // the next read
        }
    }

    /** Kept until the handler registers (Pekko's connection reads nothing until then), applied after. */
    private void readControl(ReadControl r) {
        boolean wasSuspended = readingSuspended;
        readingSuspended = r == ReadControl.SUSPEND_READING;
        if (handler != null && wasSuspended && !readingSuspended) {
            resumeReading();
        }
    }

    /** The handler reads again (or first): what was held goes to it, then Pekko reads on. */
    private void resumeReading() {
        held.forEach(data -> handler.tell(new TcpProtocol.Received(data)));
        held.clear();
        if (peerClosedHeld) {
            peerClosedHeld = false;
            peerClosed();
        }
        pekko.tell(TcpMessage.resumeReading(), getSelf());
    }

    // ---- registration

    private void register(Register r) {
        if (handler != null) {
            return;
        }
        getTimers().cancel(Timeout.REGISTER);
        handler = r.handler();
        keepOpenOnPeerClosed = r.keepOpenOnPeerClosed();
        getContext().watch(Adapter.toClassic(handler)); // a death pact, as in Pekko IO
        if (!readingSuspended) {
            resumeReading();
        }
        if (tcp.idleTimeout() != null) {
            getTimers().startTimerWithFixedDelay(Timeout.IDLE_CHECK, Timeout.IDLE_CHECK,
                    tcp.idleTimeout().dividedBy(2));
        }
        sendNext();
    }

    private void holdRegistration(TcpConnection.HoldRegistration hold) {
        if (handler == null) {
            if (hold.held()) {
                getTimers().cancel(Timeout.REGISTER);
            } else {
                getTimers().startSingleTimer(Timeout.REGISTER, Timeout.REGISTER, tcp.registerTimeout());
            }
        }
    }

    // ---- writing

    private void write(WriteCommand w) {
        Exception refused = refusal(w);
        if (refused != null) {
            giveBackFile(w);
            handler().tell(new CommandFailed(w, refused));
            return;
        }
        WriteCommand queued = WriteRequests.headerOnly(w);
        if (queued != w) {
            giveBackFile(w); // only its header is left to send
        }
        pendingBytes += WriteRequests.inMemory(queued);
        queue.add(queued);
        sendNext();
    }

    /** Why {@code w} cannot be taken, as a ring's connection says it; null when it can. */
    private Exception refusal(WriteCommand w) {
        if (closeAfterWrites != null || endEvent != null) {
            return new IllegalStateException("the connection is closing");
        }
        Exception refused = w instanceof WriteFile file ? WriteRequests.fileRefusal(file,
                JdkFiles.get(Adapter.toTyped(getContext().getSystem())).openFiles()::isOpen) : null;
        if (refused != null) {
            return refused;
        }
        return WriteRequests.overflows(sending || !queue.isEmpty(), pendingBytes, w, tcp)
                ? WriteRequests.queueFull(pendingBytes, tcp) : null;
    }

    /** Hands Pekko the next batch of writes, or the head file's next piece; or closes once all is sent. */
    private void sendNext() {
        if (sending || handler == null || endEvent != null) {
            return;
        }
        if (queue.isEmpty()) {
            if (closeAfterWrites != null) {
                pekko.tell(closeAfterWrites == CloseCommand.CONFIRMED_CLOSE ? TcpMessage.confirmedClose()
                        : TcpMessage.close(), getSelf());
            }
            return;
        }
        sending = true;
        if (queue.peek() instanceof WriteFile file) {
            fileSent = 0;
            readPiece(file);
            return;
        }
        ByteString batch = ByteString.emptyByteString();
        List<WriteCommand> commands = new ArrayList<>();
        List<Event> acks = new ArrayList<>();
        while (queue.peek() instanceof Write w) {
            queue.poll();
            batch = batch.concat(w.data());
            commands.add(w);
            if (w.ack() != null) {
                acks.add(w.ack());
            }
        }
        pekko.tell(TcpMessage.write(batch, new Written(batch.size(), commands, acks)), getSelf());
    }

    private void readPiece(WriteFile file) {
        int length = (int) Math.min(Math.min(tcp.fileChunk(), maxIoSize), file.count() - fileSent);
        ActorRef self = getSelf();
        UringFiles.get(Adapter.toTyped(getContext().getSystem())).read(file.file(), file.position() + fileSent, length)
                .whenComplete((data, failure) -> self.tell(new FileRead(data, failure), ActorRef.noSender()));
    }

    private void fileRead(FileRead read) {
        if (endEvent != null || !(queue.peek() instanceof WriteFile file)) {
            sending = false; // aborted meanwhile: the piece is not wanted
            return;
        }
        if (read.failure() != null || read.data().isEmpty()) {
            Throwable cause = read.failure() != null ? read.failure() : WriteRequests.fileEnded(file, fileSent);
            handler().tell(new CommandFailed(file, cause));
            endWith(new TcpProtocol.ErrorClosed(cause.toString()));
            return;
        }
        long header = fileSent == 0 ? file.header().size() : 0;
        ByteString piece = header > 0 ? file.header().concat(read.data()) : read.data();
        fileSent += read.data().size();
        boolean last = fileSent == file.count();
        pekko.tell(TcpMessage.write(piece, new Written(header, List.of(file),
                last && file.ack() != null ? List.of(file.ack()) : List.of())), getSelf());
    }

    private void written(Written w) {
        lastActivity = System.nanoTime();
        sending = false;
        pendingBytes -= w.bytes();
        if (queue.peek() instanceof WriteFile file && fileSent >= 0) {
            if (fileSent < file.count()) {
                sending = true;
                readPiece(file);
                return;
            }
            queue.poll();
            fileSent = -1;
            giveBackFile(file);
        }
        w.acks().forEach(ack -> handler().tell(ack));
        sendNext();
    }

    /** A WriteFile with closeAfter owns its file: it closes it once it is done with it, however it ends. */
    private void giveBackFile(WriteCommand w) {
        if (w instanceof WriteFile file && file.closeAfter()) {
            UringFiles.get(Adapter.toTyped(getContext().getSystem())).close(file.file());
        }
    }

    private void commandFailed(Tcp.CommandFailed f) {
        if (f.cmd() instanceof Tcp.Connect) {
            told = true;
            owner.tell(new CommandFailed(connect, PekkoOptions.causeOf(f, "connect " + connect.remoteAddress())));
            getContext().stop(getSelf());
        } else if (f.cmd() instanceof Tcp.Write write && write.ack() instanceof Written batch) {
            // The batch's writes left the queue when it went to Pekko: the first of them is the one that failed.
            // Nothing after it may go out, so the connection ends, as a ring's does on a failed send.
            sending = false;
            if (endEvent == null) {
                Throwable cause = PekkoOptions.causeOf(f, "send");
                handler().tell(new CommandFailed(batch.commands().get(0), cause));
                endWith(new TcpProtocol.ErrorClosed(cause.getMessage()));
            }
        }
    }

    // ---- closing

    private void close(CloseCommand c) {
        if (c == CloseCommand.ABORT) {
            if (endEvent == null) {
                endEvent = TcpProtocol.Aborted.INSTANCE;
                pekko.tell(TcpMessage.abort(), getSelf()); // a reset: what is queued is dropped
            }
        } else if (closeAfterWrites == null && endEvent == null) {
            closeAfterWrites = c;
            sendNext();
        }
    }

    private void peerClosed() {
        if (keepOpenOnPeerClosed) {
            handler().tell(TcpProtocol.PeerClosed.INSTANCE);
        } else if (closeAfterWrites == null) {
            closeAfterWrites = CloseCommand.CLOSE; // as Pekko IO: send what is queued, then close
            peerClosedEnds = true;
            sendNext();
        }
    }

    /**
     * Ends the connection now, as a ring's connection does on a failure or timeout: what is queued here is
     * dropped, the socket is closed, and the handler gets {@code event}.
     */
    private void endWith(ConnectionClosed event) {
        if (endEvent == null) {
            endEvent = event;
            queue.forEach(this::giveBackFile);
            queue.clear();
            pekko.tell(TcpMessage.close(), getSelf());
        }
    }

    /** Pekko's connection has ended: the handler hears of it in this protocol's words, and this actor stops. */
    private void closed(Tcp.ConnectionClosed event) {
        ConnectionClosed ours = endEvent != null ? endEvent
                : peerClosedEnds ? TcpProtocol.PeerClosed.INSTANCE
                : event.isConfirmed() ? TcpProtocol.ConfirmedClosed.INSTANCE
                : event.isAborted() ? TcpProtocol.Aborted.INSTANCE
                : event.isErrorClosed() ? new TcpProtocol.ErrorClosed(PekkoOptions.closedCause(event.getErrorCause()))
                : event.isPeerClosed() ? TcpProtocol.PeerClosed.INSTANCE
                : TcpProtocol.Closed.INSTANCE;
        finish(ours);
    }

    private void terminated(Terminated t) {
        if (t.getActor().equals(pekko)) {
            finish(endEvent != null ? endEvent : new TcpProtocol.ErrorClosed("Pekko's connection actor stopped"));
        } else if (endEvent == null) { // the handler stopped: nobody reads or writes the connection any more
            closeAfterWrites = CloseCommand.CLOSE;
            queue.forEach(this::giveBackFile);
            queue.clear();
            pekko.tell(TcpMessage.close(), getSelf());
        }
    }

    private void finish(ConnectionClosed event) {
        queue.forEach(this::giveBackFile);
        queue.clear();
        told = true;
        handler().tell(event);
        getContext().stop(getSelf());
    }

    /**
     * Stopped without the handler hearing how it ended: a failure here (the parent stops, never restarts, a
     * connection: a restart would announce it again). Pekko's connection, whose handler this is, closes with it.
     */
    @Override
    public void postStop() {
        queue.forEach(this::giveBackFile);
        queue.clear();
        if (!told && connect != null && pekko == null) {
            owner.tell(new CommandFailed(connect, new IllegalStateException("the connection's actor stopped")));
        } else if (!told) {
            handler().tell(new TcpProtocol.ErrorClosed("the connection's actor stopped before the connection ended"));
        }
    }

    private void idleCheck() {
        if (System.nanoTime() - lastActivity > tcp.idleTimeout().toNanos()) {
            endWith(new TcpProtocol.ErrorClosed("idle timeout: no data either way for " + tcp.idleTimeout()));
        }
    }
}
