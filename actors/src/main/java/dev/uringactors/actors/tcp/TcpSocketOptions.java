package dev.uringactors.actors.tcp;

import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Sockets;
import org.apache.pekko.io.Inet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Socket options and an idle timeout for one listener or one outgoing connection, taking Pekko IO's
 * {@code Inet.SocketOption}s as Pekko's {@code Tcp.bind} and {@code Tcp.outgoingConnection} do. A listener's are
 * set on the listening socket, whose accepted sockets inherit them; the idle timeout replaces
 * {@code uring.tcp.idle-timeout} for the listener's connections, or for the one connection.
 */
public final class TcpSocketOptions {
    /** Nothing beyond {@code uring.tcp}. */
    public static final TcpSocketOptions DEFAULT = new TcpSocketOptions(List.of(), Optional.empty());

    private static final int IPPROTO_IP = 0;
    private static final int IP_TOS = 1;
    private static final int SO_OOBINLINE = 10;
    /** Pekko's {@code Inet.SO} and {@code Tcp.SO} options by class name, and the setsockopt level and name. */
    private static final Map<String, int[]> LEVEL_AND_NAME = Map.of(
            "ReceiveBufferSize", new int[] {Sockets.SOL_SOCKET, Sockets.SO_RCVBUF},
            "SendBufferSize", new int[] {Sockets.SOL_SOCKET, Sockets.SO_SNDBUF},
            "ReuseAddress", new int[] {Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR},
            "TrafficClass", new int[] {IPPROTO_IP, IP_TOS},
            "KeepAlive", new int[] {Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE},
            "OOBInline", new int[] {Sockets.SOL_SOCKET, SO_OOBINLINE},
            "TcpNoDelay", new int[] {Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY});

    private final List<Inet.SocketOption> options;
    private final Optional<Duration> idleTimeout;

    private TcpSocketOptions(List<Inet.SocketOption> options, Optional<Duration> idleTimeout) {
        this.options = options;
        this.idleTimeout = idleTimeout;
    }

    /** Fails at once for an option this library cannot set. */
    public static TcpSocketOptions of(Iterable<Inet.SocketOption> options, Optional<Duration> idleTimeout) {
        List<Inet.SocketOption> list = new ArrayList<>();
        for (Inet.SocketOption o : options) {
            if (!LEVEL_AND_NAME.containsKey(o.getClass().getSimpleName())) {
                throw new IllegalArgumentException("socket option " + o + " is not supported; these are: "
                        + LEVEL_AND_NAME.keySet());
            }
            list.add(o);
        }
        return new TcpSocketOptions(List.copyOf(list), idleTimeout);
    }

    /** The bind's idle timeout for its connections; empty: {@code uring.tcp.idle-timeout}. */
    public Optional<Duration> idleTimeout() {
        return idleTimeout;
    }

    /** {@code defaults} with this idle timeout, if one is set. */
    public UringSettings.Tcp over(UringSettings.Tcp defaults) {
        return idleTimeout.map(defaults::withIdleTimeout).orElse(defaults);
    }

    /** The Pekko IO options, as given. */
    public List<Inet.SocketOption> socketOptions() {
        return options;
    }

    /** Sets the options on a socket: a listening one (its accepted sockets inherit them) or a connection's. */
    public void applyTo(int fd) {
        for (Inet.SocketOption o : options) {
            int[] levelAndName = LEVEL_AND_NAME.get(o.getClass().getSimpleName());
            // Pekko's options are case classes of one field: a size, a traffic class or a flag.
            Object value = ((scala.Product) o).productElement(0);
            int v = value instanceof Boolean on ? (on ? 1 : 0) : (Integer) value;
            Sockets.setOption(fd, levelAndName[0], levelAndName[1], v);
        }
    }
}
