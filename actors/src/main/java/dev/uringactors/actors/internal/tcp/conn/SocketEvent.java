package dev.uringactors.actors.internal.tcp.conn;

import org.apache.pekko.util.ByteString;

import java.net.InetSocketAddress;

/** What a socket tells its connection: the answers to what the connection asked of it ({@link SocketIo}). */
public sealed interface SocketEvent {
    /** An outgoing connection is connected. */
    record Connected(InetSocketAddress remoteAddress, InetSocketAddress localAddress) implements SocketEvent {
    }

    /** An outgoing connection could not be made. */
    record ConnectFailed(Throwable cause) implements SocketEvent {
    }

    /** Data for the handler, from a socket that does not hand it over itself. */
    record DataReceived(ByteString data) implements SocketEvent {
    }

    /** The receive stopped short of the end (a limit, no buffers, a cancel): armed again if reading is wanted. */
    enum ReceiveStopped implements SocketEvent { INSTANCE }

    /** The peer shut down its side: nothing more will be read. */
    enum EndOfStream implements SocketEvent { INSTANCE }

    /** {@code bytes} of the queue's head were sent. */
    record Sent(long bytes) implements SocketEvent {
    }

    /** The head WriteFile's file could not give the bytes promised. */
    record FileUnreadable(Exception cause) implements SocketEvent {
    }

    /** The socket failed (an error, a reset, its ring gone): the connection ends. */
    record Failed(String reason) implements SocketEvent {
    }

    /** The socket is closed, as the connection asked: the last event. */
    enum Closed implements SocketEvent { INSTANCE }
}
