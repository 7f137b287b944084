package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.file.FileRings;
import dev.uringactors.actors.internal.file.OpenFiles;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Pipe;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Consumer;

/**
 * The write side of one connection, kept apart as Pekko IO keeps its pending write: the writes taken and not yet
 * sent, the one piece of the head write in flight, and the pipe that file pieces are spliced through. A piece is
 * at most {@code uring.tcp.write-chunk} bytes of native memory (or {@code uring.buffers.max-io-size}, if smaller),
 * or for a file {@code uring.tcp.file-chunk}; its answer (SendDone, FileUnreadable) goes to the connection, which
 * hands it back here. Runs on the ring's thread, as its connection does.
 */
final class PendingWrites {
    private static final Logger log = LoggerFactory.getLogger(PendingWrites.class);

    private final RingLoop loop;
    private final UringSettings.Tcp tcp;
    private final int fd;
    private final ActorRef<ConnectionCommand> connection;
    private final ActorSystem<?> system;
    private final ArrayDeque<WriteCommand> queue = new ArrayDeque<>();
    /** Bytes of the queued writes held in memory (a WriteFile's file part is not). */
    private long bytesInMemory;
    /** The piece of the head write in flight, or null. */
    private TcpOps.Sending inFlight;
    /** Bytes of the head write already sent. */
    private long headSent;
    /** The pipe that file pieces are spliced through, opened with the first one. */
    private Pipe pipe;
    /** The table of files open through the actors, which a WriteFile's file must be in; looked up at its first. */
    private OpenFiles openFiles;

    PendingWrites(RingLoop loop, UringSettings.Tcp tcp, int fd, ActorRef<ConnectionCommand> connection,
                  ActorSystem<?> system) {
        this.loop = loop;
        this.tcp = tcp;
        this.fd = fd;
        this.connection = connection;
        this.system = system;
    }

    /**
     * Why {@code w} cannot be taken: its file is closed, its arguments are wrong, or it would queue beyond
     * {@code max-write-queue} behind other writes (a write on an empty queue is taken whatever its size; a
     * refusal for a full queue is counted on the ring); null when it can.
     */
    Exception refusal(WriteCommand w) {
        Exception refused = w instanceof WriteFile file ? WriteRequests.fileRefusal(file, openFiles()::isOpen) : null;
        if (refused != null) {
            return refused;
        }
        if (WriteRequests.overflows(!queue.isEmpty(), bytesInMemory, w, tcp)) {
            TcpRing.of(loop).counters().writeRefused();
            return WriteRequests.queueFull(bytesInMemory, tcp);
        }
        return null;
    }

    /** Queues {@code w}, taken, and sends its first piece if nothing is in flight. */
    void add(WriteCommand w) {
        WriteCommand queued = WriteRequests.headerOnly(w);
        if (queued != w) {
            giveBackFile(w); // only its header is left to send
        }
        bytesInMemory += WriteRequests.inMemory(queued);
        queue.add(queued);
        if (inFlight == null) {
            sendNextPiece();
        }
    }

    /** Whether a piece is in flight: a request of this connection's writing that the kernel has. */
    boolean sending() {
        return inFlight != null;
    }

    /** Whether every write taken has been sent. */
    boolean allSent() {
        return queue.isEmpty();
    }

    /** The piece in flight has been answered, whatever it says: nothing of the writing is in flight now. */
    void pieceAnswered() {
        inFlight = null;
    }

    /**
     * The piece in flight sent {@code bytes}: the writes it finished leave the queue in order (their files given
     * back), each handed to {@code written}; the next piece, of the write it stopped in or of the next, goes out.
     */
    void sent(int bytes, Consumer<WriteCommand> written) {
        inFlight = null;
        headSent += bytes;
        while (!queue.isEmpty() && headSent >= queue.peek().byteCount()) {
            WriteCommand head = queue.poll();
            headSent -= head.byteCount();
            bytesInMemory -= WriteRequests.inMemory(head);
            giveBackFile(head);
            written.accept(head);
        }
        if (!queue.isEmpty()) {
            sendNextPiece();
        }
    }

    /** The head WriteFile's file could not give the bytes promised: why, for its CommandFailed. */
    Exception unreadable(int res) {
        WriteFile head = head();
        return res == 0 ? WriteRequests.fileEnded(head, Math.max(0, headSent - head.header().size()))
                : UringException.ofResult(Opcode.READ, res, head.file().path().toString(), 0);
    }

    /** The head write, a WriteFile whose file was unreadable. */
    WriteFile head() {
        return (WriteFile) queue.peek();
    }

    /**
     * The connection is closing and has cancelled what is in flight on the socket: a short send must not go on
     * with a new request, which that cancellation would not reach.
     */
    void stopSending() {
        if (inFlight != null) {
            inFlight.stop();
        }
    }

    /**
     * The connection is closing: the pipe is closed and the files of the writes not sent are given back. With a
     * request that may still use the pipe (a cancelled splice not yet completed), its ends are closed through the
     * ring, behind the cancel; with none, or off the loop's thread (its ring drained), at once.
     */
    void discard() {
        if (pipe != null) {
            if (inFlight != null && loop.inLoop()) {
                loop.issuer().issue(TcpOps.close(pipe.readEnd()));
                loop.issuer().issue(TcpOps.close(pipe.writeEnd()));
            } else {
                pipe.close();
            }
            pipe = null;
        }
        queue.forEach(this::giveBackFile);
        queue.clear();
    }

    /**
     * Closes the file of a WriteFile that gave it to this connection, once no request of it is in flight (or
     * after their cancel): through the ring on its thread (directly where the ring can no longer take it), and
     * directly off it, once the loop has ended. A file closed already is not ours to close again.
     */
    void giveBackFile(WriteCommand w) {
        if (w instanceof WriteFile file && file.closeAfter() && openFiles().closing(file.file())) {
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

    private void sendNextPiece() {
        WriteCommand head = queue.peek();
        inFlight = head instanceof WriteFile file ? nextFilePiece(file) : nextWritePiece(((Write) head).data());
        loop.issuer().issue(inFlight);
    }

    /**
     * The rest of the head write, or its next piece; with room left in the piece, the whole writes queued behind
     * it too, as Pekko IO coalesces them: a stream of small writes (HTTP/2's frames, say) goes out in one send per
     * turn instead of one send a turn each.
     */
    private TcpOps.Send nextWritePiece(ByteString head) {
        int max = pieceSize();
        ByteString piece = head.size() - headSent <= max ? head.drop((int) headSent)
                : head.slice((int) headSent, (int) headSent + max);
        Iterator<WriteCommand> behind = queue.iterator();
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
        return new TcpOps.Send(fd, piece, zeroCopy, connection);
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
            return send(file.header().slice((int) headSent, (int) Math.min(headerSize, headSent + pieceSize())));
        }
        if (splice && pipe == null) {
            pipe = openPipe();
        }
        if (splice && pipe != null) {
            return new TcpOps.SpliceFile(fd, file.file().fd(), position, Math.min(length, pipe.capacity()), pipe,
                    connection);
        }
        ByteString headerLeft = headSent < headerSize ? file.header().drop((int) headSent)
                : ByteString.emptyByteString();
        return new TcpOps.SendFile(fd, file.file().fd(), position, length, headerLeft, connection);
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
}
