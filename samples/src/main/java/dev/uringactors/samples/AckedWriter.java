package dev.uringactors.samples;

import dev.uringactors.actors.TcpProtocol.Ack;
import dev.uringactors.actors.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.TcpProtocol.ReadControl;
import dev.uringactors.actors.TcpProtocol.Write;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;

import java.util.ArrayDeque;

/**
 * A handler's side of write back-pressure. At most {@link #HIGH_WATER} bytes wait in the connection for their
 * acknowledgement; replies beyond that wait here, and reading is suspended until they drain below
 * {@link #LOW_WATER}. What waits here is bounded by what had already been received when reading stopped, so a
 * peer that sends without reading is held back by TCP instead of filling the server's memory.
 */
final class AckedWriter {
    static final int HIGH_WATER = 256 * 1024;
    static final int LOW_WATER = 64 * 1024;

    private final ActorRef<ConnectionCommand> connection;
    private final ArrayDeque<ByteString> waiting = new ArrayDeque<>();
    private long inConnection;
    private long waitingBytes;
    private boolean suspended;

    AckedWriter(ActorRef<ConnectionCommand> connection) {
        this.connection = connection;
    }

    void write(ByteString data) {
        if (waiting.isEmpty() && inConnection + data.size() <= HIGH_WATER) {
            send(data);
        } else {
            waiting.add(data);
            waitingBytes += data.size();
        }
        if (!suspended && inConnection + waitingBytes > HIGH_WATER) {
            suspended = true;
            connection.tell(ReadControl.SUSPEND_READING);
        }
    }

    /** Handles the {@link Ack} of one of this writer's writes. */
    void acknowledged(Ack ack) {
        inConnection -= (Integer) ack.token();
        while (!waiting.isEmpty() && inConnection + waiting.peek().size() <= HIGH_WATER) {
            ByteString next = waiting.poll();
            waitingBytes -= next.size();
            send(next);
        }
        if (suspended && inConnection + waitingBytes < LOW_WATER) {
            suspended = false;
            connection.tell(ReadControl.RESUME_READING);
        }
    }

    /** Whether everything written has been sent and acknowledged. */
    boolean idle() {
        return inConnection == 0 && waiting.isEmpty();
    }

    private void send(ByteString data) {
        inConnection += data.size();
        connection.tell(new Write(data, new Ack(data.size())));
    }
}
