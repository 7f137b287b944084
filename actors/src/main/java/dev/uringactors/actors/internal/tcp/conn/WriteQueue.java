package dev.uringactors.actors.internal.tcp.conn;

import dev.uringactors.actors.internal.tcp.WriteRequests;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.typed.ActorRef;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Consumer;

/**
 * The writes a connection has taken and not yet sent, in order, as Pekko IO keeps its pending write: what may be
 * taken ({@code uring.tcp.max-write-queue} of bytes in memory behind the head), how much of the head is sent,
 * and the acknowledgements the writes it finishes are owed. The socket reads it to make its next piece.
 */
public final class WriteQueue {
    private final UringSettings.Tcp tcp;
    private final ArrayDeque<WriteCommand> queue = new ArrayDeque<>();
    /** Bytes of the queued writes held in memory (a WriteFile's file part is not). */
    private long bytesInMemory;
    /** Bytes of the head write already sent. */
    private long headSent;

    WriteQueue(UringSettings.Tcp tcp) {
        this.tcp = tcp;
    }

    /**
     * Why {@code w} cannot be taken: what {@code socket} says of its file, or a full queue (a write on an empty
     * queue is taken whatever its size); null when it can.
     */
    Exception refusal(WriteCommand w, SocketIo socket) {
        Exception refused = w instanceof WriteFile file ? socket.fileRefusal(file) : null;
        if (refused != null) {
            return refused;
        }
        if (WriteRequests.overflows(!queue.isEmpty(), bytesInMemory, w, tcp)) {
            socket.queueFull();
            return WriteRequests.queueFull(bytesInMemory, tcp);
        }
        return null;
    }

    /** Queues {@code w}, taken; a WriteFile of no bytes is queued as its header, its file given back at once. */
    void add(WriteCommand w, SocketIo socket) {
        WriteCommand queued = WriteRequests.headerOnly(w);
        if (queued != w) {
            socket.closeOwnedFile((WriteFile) w);
        }
        bytesInMemory += WriteRequests.inMemory(queued);
        queue.add(queued);
    }

    public boolean isEmpty() {
        return queue.isEmpty();
    }

    /** The write being sent. */
    public WriteCommand head() {
        return queue.peek();
    }

    /** Bytes of the head already sent: its next piece starts there. */
    public long headSent() {
        return headSent;
    }

    /** The writes from the head on, for a socket that sends several in one piece. */
    public Iterator<WriteCommand> iterator() {
        return queue.iterator();
    }

    /**
     * {@code bytes} went out: the writes they finish leave the queue in order, their files given back by
     * {@code socket} and their acknowledgements told to {@code acks}.
     */
    void sent(long bytes, SocketIo socket, ActorRef<Event> acks) {
        headSent += bytes;
        while (!queue.isEmpty() && headSent >= queue.peek().byteCount()) {
            WriteCommand head = queue.poll();
            headSent -= head.byteCount();
            bytesInMemory -= WriteRequests.inMemory(head);
            if (head instanceof WriteFile file) {
                socket.closeOwnedFile(file);
            }
            if (head.ack() != null) {
                acks.tell(head.ack());
            }
        }
    }

    /** The connection ends: the writes not sent give back their files through {@code closeOwnedFile}. */
    public void discard(Consumer<WriteFile> closeOwnedFile) {
        queue.forEach(w -> {
            if (w instanceof WriteFile file) {
                closeOwnedFile.accept(file);
            }
        });
        queue.clear();
    }
}
