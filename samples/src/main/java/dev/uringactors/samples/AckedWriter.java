package dev.uringactors.samples;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.tcp.TcpProtocol.ReadControl;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A handler's side of write back-pressure. At most {@link #HIGH_WATER} bytes wait in the connection to be sent;
 * replies beyond that wait here, and reading is suspended until they drain below {@link #LOW_WATER}. What waits
 * here is bounded by what had already been received when reading stopped, so a peer that sends without reading
 * is held back by TCP instead of filling the server's memory.
 *
 * <p>Only one write in every {@link #ACK_INTERVAL} bytes asks for an acknowledgement, carrying the total
 * written up to it: acknowledgements come in write order, so each tells how much of everything before it has
 * been sent, and small replies cost no acknowledgement message each. The interval is well below the high
 * water mark, so that while reading is suspended there is always an acknowledgement on its way.
 *
 * <p>Part of a file ({@link #writeFile}) counts as its length, as if it were bytes in memory, so that what
 * follows it waits and reading stays suspended while it is sent. The file goes to the connection, which closes
 * it once it is sent; until then it is counted here ({@link #filesInFlight()}), so that a caller can bound the
 * files it holds open. At least every {@link #FILES_PER_ACK}th file asks for an acknowledgement, so that a caller
 * waiting for that count to fall always has one on its way.
 */
final class AckedWriter {
    static final int HIGH_WATER = 256 * 1024;
    static final int LOW_WATER = 64 * 1024;
    static final int ACK_INTERVAL = 32 * 1024;
    static final int FILES_PER_ACK = 8;

    private final ActorRef<ConnectionCommand> connection;
    private final ArrayDeque<WriteCommand> waiting = new ArrayDeque<>();
    /** Where each file not yet known to be sent ends, in bytes written. */
    private final ArrayDeque<Long> fileEnds = new ArrayDeque<>();
    private int filesSinceAck;
    private long written;
    private long acknowledged;
    private long lastAckAskedAt;
    private long waitingBytes;
    private boolean suspended;
    /** Too many bytes wait to be sent. */
    private boolean full;
    /** The caller holds reading back ({@link #holdReading}). */
    private boolean held;
    private boolean closeWhenWritten;
    private boolean closeSent;

    AckedWriter(ActorRef<ConnectionCommand> connection) {
        this.connection = connection;
    }

    /** Bytes given to this writer and not yet known to be sent. */
    long held() {
        return inConnection() + waitingBytes;
    }

    /** Bytes handed to the connection and not yet known to be sent. */
    private long inConnection() {
        return written - acknowledged;
    }

    /**
     * Whether a write of {@code size} goes to the connection now: it fits under the high water mark, or no
     * acknowledgement is on its way (then nothing would ever release it from waiting here).
     */
    private boolean goesNow(long size) {
        return inConnection() + size <= HIGH_WATER || lastAckAskedAt == acknowledged;
    }

    void write(ByteString data) {
        enqueue(Write.of(data));
    }

    /**
     * Sends {@code header}, then {@code count} bytes of {@code file} from {@code position}, after what was written
     * before. The file is the connection's to close from now on, or this writer's while it waits here.
     */
    void writeFile(ByteString header, FileHandle file, long position, long count) {
        enqueue(new WriteFile(header, file, position, count, true, null));
        fileEnds.add(written + waitingBytes);
    }

    /** Files given to {@link #writeFile} and not yet known to be sent. */
    int filesInFlight() {
        return fileEnds.size();
    }

    /** The connection has ended: the files that never reached it, for the caller to close. */
    List<FileHandle> unsentFiles() {
        List<FileHandle> files = new ArrayList<>();
        for (WriteCommand w : waiting) {
            if (w instanceof WriteFile file) {
                files.add(file.file());
            }
        }
        return files;
    }

    private void enqueue(WriteCommand w) {
        if (waiting.isEmpty() && goesNow(w.byteCount())) {
            send(w);
        } else {
            waiting.add(w);
            waitingBytes += w.byteCount();
        }
        if (!full && inConnection() + waitingBytes > HIGH_WATER) {
            full = true;
            readOrNot();
        }
    }

    /**
     * Holds reading back while {@code hold}, whatever the writes: for a caller whose work on what it read is
     * still going on elsewhere (requests out to other actors), so that a peer cannot make it pile up.
     */
    void holdReading(boolean hold) {
        held = hold;
        readOrNot();
    }

    private void readOrNot() {
        boolean suspend = full || held;
        if (suspend != suspended) {
            suspended = suspend;
            connection.tell(suspend ? ReadControl.SUSPEND_READING : ReadControl.RESUME_READING);
        }
    }

    /** Handles the {@link Ack} of one of this writer's writes. */
    void acknowledged(Ack ack) {
        acknowledged = (Long) ack.token();
        while (!fileEnds.isEmpty() && fileEnds.peek() <= acknowledged) {
            fileEnds.poll();
        }
        while (!waiting.isEmpty() && goesNow(waiting.peek().byteCount())) {
            WriteCommand next = waiting.poll();
            waitingBytes -= next.byteCount();
            send(next);
        }
        if (full && inConnection() + waitingBytes < LOW_WATER) {
            full = false;
            readOrNot();
        }
        closeIfDrained();
    }

    /**
     * Closes the connection once everything given to this writer has been handed to it; the connection sends
     * all of that before it closes. Closing earlier would fail the writes still waiting here.
     */
    void closeWhenWritten() {
        closeWhenWritten = true;
        closeIfDrained();
    }

    private void closeIfDrained() {
        if (closeWhenWritten && waiting.isEmpty() && !closeSent) {
            closeSent = true;
            connection.tell(CloseCommand.CLOSE);
        }
    }

    private static WriteFile withAck(WriteFile w, Ack ack) {
        return new WriteFile(w.header(), w.file(), w.position(), w.count(), w.closeAfter(), ack);
    }

    private void send(WriteCommand w) {
        written += w.byteCount();
        boolean askAck = written - lastAckAskedAt >= ACK_INTERVAL
                || (w instanceof WriteFile && ++filesSinceAck >= FILES_PER_ACK);
        if (askAck) {
            lastAckAskedAt = written;
            filesSinceAck = 0;
        }
        Ack ack = askAck ? new Ack(written) : null;
        connection.tell(w instanceof Write write ? new Write(write.data(), ack) : withAck((WriteFile) w, ack));
    }
}
