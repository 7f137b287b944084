package dev.uringactors.actors.internal.tcp.conn;

import dev.uringactors.actors.tcp.TcpProtocol.Event;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The reading side of a connection: what its handler wants (suspended or not), whether the peer's end of stream
 * was read, and from these and what its phase wants, whether the socket receives.
 */
final class ReadSide {
    /** What a phase wants of reading. */
    enum Wanted {
        /** Nothing is read: no handler yet, or nothing more will come. */
        NONE,
        /** Read unless the handler suspended reading. */
        UNLESS_SUSPENDED,
        /** Read whatever the handler wants: a confirmed close must see the peer's end of stream. */
        ALWAYS
    }

    private final SocketIo socket;
    private boolean suspended;
    private boolean ended;

    ReadSide(SocketIo socket) {
        this.socket = socket;
    }

    void suspend(boolean suspend) {
        suspended = suspend;
    }

    /** The peer's end of stream was read: nothing more will be. */
    void ended() {
        ended = true;
    }

    boolean isEnded() {
        return ended;
    }

    /** Arms the receive, data going to {@code handler}, or stops it, as {@code wanted} and the handler say. */
    void apply(Wanted wanted, ActorRef<Event> handler) {
        boolean reading = !ended && (wanted == Wanted.ALWAYS || wanted == Wanted.UNLESS_SUSPENDED && !suspended);
        if (reading) {
            socket.receive(handler);
        } else {
            socket.stopReceiving();
        }
    }
}
