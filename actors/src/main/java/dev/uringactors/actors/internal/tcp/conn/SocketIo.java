package dev.uringactors.actors.internal.tcp.conn;

import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a connection asks of its socket, implemented once on a ring and once over Pekko IO. The socket knows the
 * kernel or Pekko; the connection knows phases and promises. Its answers come back as messages to the
 * connection's actor, which hands each to {@link #interpret}. Called only on the connection's actor.
 */
public interface SocketIo {
    /** The ring the socket is on (under the JDK backend, an index given in turn). */
    int ring();

    /** The connection is handed out (told Connected): the socket takes part in its ring's life from now on. */
    void opened();

    /** Starts receiving, unless it is already: data goes to {@code handler}, or comes back as DataReceived. */
    void receive(ActorRef<Event> handler);

    /** Stops receiving soon; data may still come before the socket says ReceiveStopped. */
    void stopReceiving();

    /** Whether a piece of the write queue is with the socket. */
    boolean sending();

    /** Sends (a prefix of) what {@code writes} holds from its head on; answered with Sent or a failure. */
    void send(WriteQueue writes);

    /** Why {@code file} cannot be taken (its file not open here, or wrong arguments), or null. */
    Exception fileRefusal(WriteFile file);

    /** A write was refused for a full queue. */
    void queueFull();

    /** Closes the file {@code file} owns, once nothing of the socket's may still read it. */
    void closeOwnedFile(WriteFile file);

    /** Shuts down the sending side; the peer's end of stream is still to be read. */
    void shutdownOutput();

    /**
     * Closes: cancels what is in flight ({@code abort}: with a reset), gives back the files of what {@code writes}
     * still holds once nothing may read them, and answers Closed.
     */
    void close(boolean abort, WriteQueue writes);

    /** The connection's actor stops: closes at once, answering nothing. */
    void closeOnStop(WriteQueue writes);

    /** What {@code message} (an answer of the socket's, or a Terminated signal) means, or null: nothing. */
    SocketEvent interpret(Object message);
}
