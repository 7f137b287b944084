package dev.uringactors.actors.internal.tcp.pekko;

import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.UringException;
import org.apache.pekko.io.Inet;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpSO;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What Pekko's Tcp is given and answers, in this library's terms, under the JDK backend. */
public final class PekkoOptions {
    /** The JDK's words for the socket errors (its own "Connection reset", else strerror's), and their errno. */
    private static final Map<String, Integer> SOCKET_ERRORS = Map.of(
            "Connection refused", Errno.ECONNREFUSED,
            "Connection reset", Errno.ECONNRESET,
            "Broken pipe", Errno.EPIPE,
            "Address already in use", 98, // EADDRINUSE
            "Cannot assign requested address", 99, // EADDRNOTAVAIL
            "Network is unreachable", 101, // ENETUNREACH
            "No route to host", 113, // EHOSTUNREACH
            "Connection timed out", Errno.ETIMEDOUT);

    private PekkoOptions() {
    }

    /** The socket options, with TCP_NODELAY as {@code uring.tcp.no-delay} has it unless they set it themselves. */
    public static List<Inet.SocketOption> of(UringSettings.Tcp tcp, Iterable<Inet.SocketOption> options) {
        List<Inet.SocketOption> all = new ArrayList<>();
        options.forEach(all::add);
        if (all.stream().noneMatch(o -> o.getClass().getSimpleName().equals("TcpNoDelay"))) {
            all.add(TcpSO.tcpNoDelay(tcp.noDelay()));
        }
        return all;
    }

    /**
     * Why Pekko refused a command ({@code operation}, e.g. "connect /127.0.0.1:80"), as a ring would say it: a
     * {@link UringException} with the errno for the socket errors the JDK reports in words, else Pekko's cause.
     */
    static Throwable causeOf(Tcp.CommandFailed failed, String operation) {
        return asRingWouldSay(failed.cause().isDefined() ? failed.cause().get()
                : new IOException("Pekko IO refused " + failed.cmd() + failed.causedByString()), operation);
    }

    /**
     * {@code failure} of {@code operation} as a ring would say it: a {@link UringException} with the errno for the
     * socket errors the JDK reports in words (Pekko's wrappers included), else {@code failure} itself.
     */
    public static Throwable asRingWouldSay(Throwable failure, String operation) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            int errno = errnoOf(t.getMessage());
            if (errno != 0) {
                return new UringException(operation, errno, null).initCause(failure);
            }
        }
        return failure;
    }

    /** A ring takes addresses, not names to look up: an unresolved one is refused as there. */
    public static IllegalArgumentException unresolved(java.net.InetSocketAddress address) {
        return new IllegalArgumentException("unresolved address: " + address);
    }

    /** Pekko's reason for an ErrorClosed, led by the errno's name where it is one of the socket errors. */
    static String closedCause(String pekkoCause) {
        int errno = errnoOf(pekkoCause);
        return errno == 0 ? pekkoCause : Errno.name(errno) + " (" + pekkoCause + ")";
    }

    /** The errno whose text the JDK's message has, for the errors sockets meet; 0 for another. */
    private static int errnoOf(String message) {
        if (message != null) {
            for (Map.Entry<String, Integer> e : SOCKET_ERRORS.entrySet()) {
                if (message.contains(e.getKey())) {
                    return e.getValue();
                }
            }
        }
        return 0;
    }
}
