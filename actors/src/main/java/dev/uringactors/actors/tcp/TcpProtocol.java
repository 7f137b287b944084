package dev.uringactors.actors.tcp;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

/**
 * TCP for actors, in the words of Pekko IO: send {@link Bind} or {@link Connect} to
 * {@code UringTcp.get(system).manager()}; a bind handler gets {@link Bound}, then a {@link Connected} per
 * connection, and answers the connection with {@link Register}; the registered handler gets {@link Received}
 * data, acknowledgements of its {@link Write}s, and a {@link ConnectionClosed} event at the end (with
 * {@code keepOpenOnPeerClosed}, {@link PeerClosed} first, and later the event of its own close).
 * Listeners and connections run on ring threads: a handler spawned on the same ring (see
 * {@link UringExtension#dispatcher(int)}) reacts to its data without a thread hop.
 */
public final class TcpProtocol {
    private TcpProtocol() {
    }

    /** What {@code UringTcp.manager()} takes. */
    public sealed interface ManagerCommand permits Bind, Connect {
    }

    /**
     * Listen on {@code localAddress} (port 0 picks one). {@code backlog} 0 takes {@code uring.tcp.backlog}. In
     * pull mode the listener accepts only as many connections as {@link ResumeAccepting} allowed; the kernel
     * backlog holds the rest. {@code options} adds socket options and an idle timeout for this listener.
     */
    public record Bind(ActorRef<Event> handler, InetSocketAddress localAddress, int backlog, boolean pullMode,
                       TcpSocketOptions options) implements ManagerCommand {
        /** A bind with the default socket options. */
        public Bind(ActorRef<Event> handler, InetSocketAddress localAddress, int backlog, boolean pullMode) {
            this(handler, localAddress, backlog, pullMode, TcpSocketOptions.DEFAULT);
        }

        /** A bind with the settings' backlog, accepting whenever a connection comes. */
        public Bind(ActorRef<Event> handler, InetSocketAddress localAddress) {
            this(handler, localAddress, 0, false);
        }
    }

    /**
     * Open a connection to {@code remoteAddress}, an address (the actors look up no names; {@code UringTcp}'s
     * streams do); {@code handler} gets {@link Connected} or {@link CommandFailed}. Our end is bound to
     * {@code localAddress} first, if one is given; {@code options} adds socket options and an idle timeout for
     * this connection; a connect not made within {@code timeout} fails with a {@code ConnectException} (without
     * one it waits as long as the kernel tries, about two minutes against a peer that never answers).
     */
    public record Connect(ActorRef<Event> handler, InetSocketAddress remoteAddress,
                          Optional<InetSocketAddress> localAddress, TcpSocketOptions options,
                          Optional<Duration> timeout) implements ManagerCommand {
        /** A connect from any local address, with the default socket options and no timeout of its own. */
        public Connect(ActorRef<Event> handler, InetSocketAddress remoteAddress) {
            this(handler, remoteAddress, Optional.empty(), TcpSocketOptions.DEFAULT, Optional.empty());
        }
    }

    /**
     * What a listener ({@link Bound#listener()}) takes: {@link ResumeAccepting}, {@link Unbind},
     * {@link GetListenerStats}, and the listener's own messages, which are internal.
     */
    public interface ListenerCommand {
    }

    /** Pull mode: accept up to {@code batchSize} more connections (on each ring). */
    public record ResumeAccepting(int batchSize) implements ListenerCommand {
    }

    /** Stop accepting and close the listening sockets; answered with {@link Unbound}. */
    public record Unbind(ActorRef<Event> replyTo) implements ListenerCommand {
    }

    /** The bind's accept counters, summed over its rings. */
    public record GetListenerStats(ActorRef<ListenerStats> replyTo) implements ListenerCommand {
    }

    /**
     * What a connection ({@link Connected#connection()}) takes: {@link Register}, {@link WriteCommand}s,
     * {@link ReadControl}, {@link CloseCommand}s. (Its own messages are internal, and none of these.)
     */
    public sealed interface ConnectionCommand permits Register, WriteCommand, ReadControl, CloseCommand {
    }

    /** What the connection sends, in the order given: bytes ({@link Write}) or part of a file ({@link WriteFile}). */
    public sealed interface WriteCommand extends ConnectionCommand permits Write, WriteFile {
        /** What the handler gets once it is all written; null for nothing. */
        Event ack();

        /** The bytes it puts on the wire. */
        long byteCount();
    }

    /**
     * Start reading: data goes to {@code handler}. With {@code keepOpenOnPeerClosed}, the connection stays open
     * for writing after the peer has shut down its side (half-close).
     */
    public record Register(ActorRef<Event> handler, boolean keepOpenOnPeerClosed) implements ConnectionCommand {
        /** Registers {@code handler}; the peer's close closes the connection. */
        public Register(ActorRef<Event> handler) {
            this(handler, false);
        }
    }

    /**
     * Send {@code data}; once it is all written, the handler gets {@code ack} (null: no acknowledgement). Writes
     * queue in order. A write on an empty queue is taken whatever its size (it goes out in pieces of at most
     * {@code uring.tcp.write-chunk}); one that would wait behind others beyond
     * {@code uring.tcp.max-write-queue} bytes fails with {@link CommandFailed}: wait for acknowledgements to stay
     * below it. What the connection took, it sends before a CLOSE or CONFIRMED_CLOSE; only ABORT drops it.
     */
    public record Write(ByteString data, Event ack) implements WriteCommand {
        /** A write with no acknowledgement. */
        public static Write of(ByteString data) {
            return new Write(data, null);
        }

        @Override
        public long byteCount() {
            return data.size();
        }
    }

    /**
     * Send {@code header} (may be empty), then {@code count} bytes of an open file from {@code position}, without
     * bringing the file's bytes onto the Java heap, like sendfile(2) with a header. The file goes a piece of
     * {@code uring.tcp.file-chunk} bytes at a time, so that the connection holds one piece however slowly the
     * peer reads: a piece of at least {@code uring.tcp.splice-threshold} is spliced (no copy), a smaller one is
     * read into native memory after the header and sent with it. It queues with the writes; its header counts
     * against {@code max-write-queue}, its file part does not. If the file ends before {@code count} bytes or
     * cannot be read, the handler gets {@link CommandFailed} and the connection closes with {@link ErrorClosed}:
     * what the peer was promised cannot be kept, and nothing else may follow. A file opened with O_DIRECT is
     * refused.
     *
     * <p>With {@code closeAfter}, the file is the connection's from this command on: it closes it once its part
     * is sent, or when the command is refused, or when the connection ends first, and always after the last
     * request that reads it; the caller must not use the handle again. Without it, keep the file open until
     * {@code ack} arrives (or the connection's closing event).
     */
    public record WriteFile(ByteString header, FileHandle file, long position, long count, boolean closeAfter,
                            Event ack) implements WriteCommand {
        /** The file alone, no header; the caller keeps the file open and closes it. */
        public WriteFile(FileHandle file, long position, long count, Event ack) {
            this(ByteString.emptyByteString(), file, position, count, false, ack);
        }

        @Override
        public long byteCount() {
            return header.size() + count;
        }
    }

    /**
     * Back-pressure on the reading side: SUSPEND_READING stops reading from the socket (the peer's sends then
     * fill the kernel buffers and stop; data already read may still arrive), RESUME_READING starts again. They
     * may follow each other in any order and at any rate.
     */
    public enum ReadControl implements ConnectionCommand {
        /** Stop reading from the socket. */
        SUSPEND_READING,
        /** Read again. */
        RESUME_READING
    }

    /**
     * CLOSE: send what is queued, then close ({@link Closed}). CONFIRMED_CLOSE: send what is queued, shut down
     * the sending side, wait for the peer to close its side ({@link ConfirmedClosed}). ABORT: drop what is queued
     * and reset the connection ({@link Aborted}).
     */
    public enum CloseCommand implements ConnectionCommand {
        /** Send what is queued, then close. */
        CLOSE,
        /** Send what is queued, shut down sending, wait for the peer to close. */
        CONFIRMED_CLOSE,
        /** Drop what is queued and reset the connection. */
        ABORT
    }

    /** What handlers get. */
    public sealed interface Event permits Bound, Unbound, Connected, Received, Ack, CommandFailed, ConnectionClosed {
    }

    /** The listener is bound to {@code localAddress}; {@code listener} takes its commands. */
    public record Bound(InetSocketAddress localAddress, ActorRef<ListenerCommand> listener) implements Event {
    }

    /**
     * The listener is closed: after an {@link Unbind}, or when its rings closed (at shutdown, or for good). Like
     * the closing events, one that finds its handler gone is not logged as a dead letter.
     */
    public enum Unbound implements Event, DeadLetterSuppression {
        /** The one instance. */
        INSTANCE
    }

    /**
     * A connection, running on ring {@code ring}: spawn its handler with {@code UringExtension.dispatcher(ring)}
     * and the handler's reactions to its data need no thread hop.
     */
    public record Connected(InetSocketAddress remoteAddress, InetSocketAddress localAddress,
                            ActorRef<ConnectionCommand> connection, int ring) implements Event {
    }

    /** Data from the peer. */
    public record Received(ByteString data) implements Event {
    }

    /** An acknowledgement, carrying what the writer put in it. */
    public record Ack(Object token) implements Event {
    }

    /** A command that could not be carried out, and why (a {@code UringException} for kernel errors). */
    public record CommandFailed(Object command, Throwable cause) implements Event {
    }

    /**
     * The last event of a connection. As in Pekko IO, one that finds its handler gone (a stream stage that failed
     * and aborted, say) is not logged as a dead letter.
     */
    public sealed interface ConnectionClosed extends Event, DeadLetterSuppression
            permits Closed, ConfirmedClosed, Aborted, PeerClosed, ErrorClosed {
    }

    /** Closed after {@link CloseCommand#CLOSE}: everything queued was sent. */
    public enum Closed implements ConnectionClosed {
        /** The one instance. */
        INSTANCE
    }

    /** Closed after {@link CloseCommand#CONFIRMED_CLOSE}: both sides have shut down. */
    public enum ConfirmedClosed implements ConnectionClosed {
        /** The one instance. */
        INSTANCE
    }

    /** Reset after {@link CloseCommand#ABORT}. */
    public enum Aborted implements ConnectionClosed {
        /** The one instance. */
        INSTANCE
    }

    /** The peer shut down its sending side (end of stream). */
    public enum PeerClosed implements ConnectionClosed {
        /** The one instance. */
        INSTANCE
    }

    /** The connection failed: reset by the peer, timed out, or another error. */
    public record ErrorClosed(String cause) implements ConnectionClosed {
    }
}
