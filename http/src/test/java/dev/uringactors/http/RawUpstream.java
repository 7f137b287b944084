package dev.uringactors.http;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An upstream that misbehaves as a test tells it to: a loopback listener whose every accepted connection runs
 * {@code handler} on a thread of its own (the request is the handler's to read, or not). Closing it closes the
 * listener and every connection, and waits for their threads.
 */
final class RawUpstream implements AutoCloseable {
    /** What the upstream does with one connection; an exception ends it (the socket is closed after). */
    interface Handler {
        void handle(Socket connection) throws Exception;
    }

    private final ServerSocket listener;
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    RawUpstream(Handler handler) throws IOException {
        listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket c = listener.accept();
                    connections.add(c);
                    Thread t = new Thread(() -> {
                        try (c) {
                            handler.handle(c);
                        } catch (Exception ended) {
                            // the client went away, or the test closed us
                        }
                    }, "raw-upstream");
                    threads.add(t);
                    t.start();
                }
            } catch (IOException closed) {
                // close() closed the listener
            }
        }, "raw-upstream-accept");
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** The connections accepted so far. */
    int accepted() {
        return connections.size();
    }

    @Override
    public void close() throws Exception {
        listener.close();
        acceptor.join(10_000);
        for (Socket c : connections) {
            c.close();
        }
        for (Thread t : threads) {
            t.join(10_000);
        }
    }
}
