package dev.uringactors.samples;

import dev.uringactors.actors.TcpProtocol.Ack;
import dev.uringactors.actors.TcpProtocol.CloseCommand;
import dev.uringactors.actors.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.TcpProtocol.ReadControl;
import dev.uringactors.actors.TcpProtocol.Write;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;

import java.util.ArrayDeque;

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
 */
final class AckedWriter {
    static final int HIGH_WATER = 256 * 1024;
    static final int LOW_WATER = 64 * 1024;
    static final int ACK_INTERVAL = 32 * 1024;

    private final ActorRef<ConnectionCommand> connection;
    private final ArrayDeque<ByteString> waiting = new ArrayDeque<>();
    private long written;
    private long acknowledged;
    private long lastAckAskedAt;
    private long waitingBytes;
    private boolean suspended;
    private boolean closeWhenWritten;
    private boolean closeSent;

    AckedWriter(ActorRef<ConnectionCommand> connection) {
        this.connection = connection;
    }

    /** Bytes handed to the connection and not yet known to be sent. */
    private long inConnection() {
        return written - acknowledged;
    }

    /**
     * Whether a write of {@code size} goes to the connection now: it fits under the high water mark, or no
     * acknowledgement is on its way (then nothing would ever release it from waiting here).
     */
    private boolean goesNow(int size) {
        return inConnection() + size <= HIGH_WATER || lastAckAskedAt == acknowledged;
    }

    void write(ByteString data) {
        if (waiting.isEmpty() && goesNow(data.size())) {
            send(data);
        } else {
            waiting.add(data);
            waitingBytes += data.size();
        }
        if (!suspended && inConnection() + waitingBytes > HIGH_WATER) {
            suspended = true;
            connection.tell(ReadControl.SUSPEND_READING);
        }
    }

    /** Handles the {@link Ack} of one of this writer's writes. */
    void acknowledged(Ack ack) {
        acknowledged = (Long) ack.token();
        while (!waiting.isEmpty() && goesNow(waiting.peek().size())) {
            ByteString next = waiting.poll();
            waitingBytes -= next.size();
            send(next);
        }
        if (suspended && inConnection() + waitingBytes < LOW_WATER) {
            suspended = false;
            connection.tell(ReadControl.RESUME_READING);
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

    private void send(ByteString data) {
        written += data.size();
        boolean askAck = written - lastAckAskedAt >= ACK_INTERVAL;
        if (askAck) {
            lastAckAskedAt = written;
        }
        connection.tell(new Write(data, askAck ? new Ack(written) : null));
    }
}
