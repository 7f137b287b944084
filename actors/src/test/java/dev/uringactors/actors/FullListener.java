package dev.uringactors.actors;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A listener on loopback whose accept queue is full: the kernel drops every SYN sent to it, so a connect to it
 * waits, retrying, until it gives up (about two minutes) or its caller's timeout ends it. Nothing is accepted.
 */
public final class FullListener implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Socket> fillers = new ArrayList<>();

    private FullListener() throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    /** Listens with a backlog of one and connects until a connect goes unanswered: then the queue is full. */
    public static FullListener open() throws IOException {
        FullListener full = new FullListener();
        try {
            for (int i = 0; i < 64; i++) {
                Socket s = new Socket();
                full.fillers.add(s);
                try {
                    s.connect(full.address(), 200);
                } catch (SocketTimeoutException dropped) {
                    return full;
                }
            }
            throw new IllegalStateException("the accept queue of " + full.address() + " never filled");
        } catch (IOException | RuntimeException e) {
            full.close();
            throw e;
        }
    }

    /** Where connects go unanswered. */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    /**
     * Asserts that within 10 s no socket of this machine is still trying to connect here (SYN_SENT in
     * {@code /proc/net/tcp} and {@code tcp6}): a connect given up on was cancelled, not left retrying.
     */
    public void assertNoConnectWaits() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long waiting;
        while ((waiting = connectsWaiting()) > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // a poll: each look reads /proc
        }
        assertEquals(0, waiting, "sockets still in SYN_SENT to " + address());
    }

    private long connectsWaiting() throws IOException {
        String port = String.format(":%04X", address().getPort());
        long n = 0;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.trim().split("\\s+"); // sl local remote st ...
                if (f.length > 3 && f[2].endsWith(port) && f[3].equals("02")) {
                    n++;
                }
            }
        }
        return n;
    }

    @Override
    public void close() throws IOException {
        for (Socket s : fillers) {
            s.close();
        }
        listener.close();
    }
}
