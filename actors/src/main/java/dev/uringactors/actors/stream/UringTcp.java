package dev.uringactors.actors.stream;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpSocketOptions;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.io.Inet;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.RunnableGraph;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * TCP through io_uring for streams: {@link #bind} and {@link #outgoingConnection}, shaped like Pekko's
 * {@code org.apache.pekko.stream.javadsl.Tcp}, so that switching is an import change. (For actors, as Pekko's
 * {@code org.apache.pekko.io.Tcp}: {@link dev.uringactors.actors.tcp.UringTcp}.)
 *
 * <p>A bind listens on every ring: by default ({@code uring.tcp.listener = shared}) every ring keeps a
 * multishot accept on one listening socket, and each accepted connection is dealt to the ring holding the fewest
 * of the bind's connections; with {@code reuse-port} each ring has its own SO_REUSEPORT socket, the kernel spreads
 * connections by hash, and each stays on the ring that accepted it. Either way a connection lives on one ring.
 *
 * <p>Under the JDK backend ({@link UringExtension#backend()}) a bind is the actors' one ({@code TcpProtocol}) over
 * Pekko IO's {@code Tcp}, which, out of file descriptors, pauses {@code uring.tcp.accept-backoff} as a ring does
 * (Pekko Streams' own {@code Tcp} bind would retry a failed accept at once, logging each failure); an outgoing
 * connection is the actors' one over Pekko IO too. Either way with {@code uring.tcp}'s no-delay and idle timeout: one
 * listening socket, connections on Pekko's IO threads and the handler on the default dispatcher.
 */
public final class UringTcp {
    private UringTcp() {
    }

    /** TCP as streams on a typed system's rings, which start now if they have not. */
    public static UringTcp get(ActorSystem<?> system) {
        UringExtension.get(system);
        return new UringTcp();
    }

    /** As Pekko's {@code Tcp.get}: from a classic actor system, or anything that provides one. */
    public static UringTcp get(ClassicActorSystemProvider system) {
        return get(Adapter.toTyped(system.classicSystem()));
    }

    /**
     * Listens on {@code host:port} (port 0 picks one) and emits a connection per pull: shaped like Pekko's
     * {@code Tcp.bind}. Socket options and the idle timeout come from {@code uring.tcp}.
     */
    public Source<IncomingConnection, CompletionStage<ServerBinding>> bind(String host, int port) {
        return bind(host, port, 0, List.of(), false, Optional.empty());
    }

    /**
     * As Pekko's {@code Tcp.bind(interface, port, backlog, options, halfClose, idleTimeout)}: {@code backlog} 0
     * takes {@code uring.tcp.backlog}; the options are set on the listening socket; with {@code halfClose} our
     * side of a connection stays open after the peer has shut down its own; an empty idle timeout keeps
     * {@code uring.tcp.idle-timeout}.
     */
    public Source<IncomingConnection, CompletionStage<ServerBinding>> bind(String host, int port, int backlog,
            Iterable<Inet.SocketOption> options, boolean halfClose, Optional<Duration> idleTimeout) {
        TcpSocketOptions checked = TcpSocketOptions.of(options, idleTimeout); // the same options on both backends
        return Source.fromGraph(new TcpBindStage(new InetSocketAddress(host, port), backlog, halfClose, checked));
    }

    /**
     * A connection to {@code host:port} as a flow, shaped like Pekko's {@code Tcp.outgoingConnection}; as there,
     * with half-close: when the input completes, our side is shut down and the output runs until the peer closes.
     * The host name is looked up when the flow runs, through Pekko's DNS extension ({@code pekko.io.dns}), which
     * answers from its cache or on its own dispatcher: no ring thread waits for it.
     */
    public Flow<ByteString, ByteString, CompletionStage<OutgoingConnection>> outgoingConnection(String host,
                                                                                               int port) {
        return outgoingConnection(InetSocketAddress.createUnresolved(host, port), true);
    }

    /**
     * A connection to {@code remoteAddress} (resolved, or unresolved to be looked up as above); with
     * {@code halfClose}, completing the input shuts down only our sending side.
     */
    public Flow<ByteString, ByteString, CompletionStage<OutgoingConnection>> outgoingConnection(
            InetSocketAddress remoteAddress, boolean halfClose) {
        return outgoingConnection(remoteAddress, Optional.empty(), List.of(), halfClose, Optional.empty(),
                Optional.empty());
    }

    /**
     * As Pekko's {@code Tcp.outgoingConnection(remoteAddress, localAddress, options, halfClose, connectTimeout,
     * idleTimeout)}: our end bound to {@code localAddress} if one is given; the socket options set before the
     * connect; a connect not made within {@code connectTimeout} fails the flow (a {@code ConnectException}); an
     * empty idle timeout keeps {@code uring.tcp.idle-timeout}.
     */
    public Flow<ByteString, ByteString, CompletionStage<OutgoingConnection>> outgoingConnection(
            InetSocketAddress remoteAddress, Optional<InetSocketAddress> localAddress,
            Iterable<Inet.SocketOption> options, boolean halfClose, Optional<Duration> connectTimeout,
            Optional<Duration> idleTimeout) {
        TcpSocketOptions checked = TcpSocketOptions.of(options, idleTimeout); // refused now, not when it runs
        return Flow.fromGraph(TcpConnectionStage.outgoing(handler -> new TcpProtocol.Connect(handler,
                remoteAddress, localAddress, checked, connectTimeout), halfClose));
    }

    /**
     * An accepted connection: handle it with a flow, as with Pekko's {@code Tcp.IncomingConnection}. By default
     * the whole handling graph runs on the connection's ring thread (its data, the flow's stages and the socket's
     * requests need no thread hop); a handler that blocks would hold up that ring, so such a handler opts out.
     * Under the JDK backend the connection is Pekko's and the handler runs on the default dispatcher either way.
     */
    public static final class IncomingConnection {
        private final InetSocketAddress localAddress;
        private final InetSocketAddress remoteAddress;
        private final Flow<ByteString, ByteString, NotUsed> flow;
        private final int ring;
        /** The ring's dispatcher, or null where the connection is on no ring (the JDK backend). */
        private final String ringDispatcher;

        IncomingConnection(InetSocketAddress localAddress, InetSocketAddress remoteAddress,
                           Flow<ByteString, ByteString, NotUsed> flow, int ring, String ringDispatcher) {
            this.localAddress = localAddress;
            this.remoteAddress = remoteAddress;
            this.flow = flow;
            this.ring = ring;
            this.ringDispatcher = ringDispatcher;
        }

        /**
         * The ring the connection lives on. Under the JDK backend it lives on none: then a ring index given in
         * turn, whose {@link UringExtension#dispatcher(int)} (the default dispatcher) is as good a home as any.
         */
        public int ring() {
            return ring;
        }

        /** Our end of the connection. */
        public InetSocketAddress localAddress() {
            return localAddress;
        }

        /** The peer's end of the connection. */
        public InetSocketAddress remoteAddress() {
            return remoteAddress;
        }

        /** The connection as a flow: bytes from the peer out, bytes to the peer in. Materialize it once. */
        public Flow<ByteString, ByteString, NotUsed> flow() {
            return flow;
        }

        /** Runs {@code handler} on this connection, on its ring's thread; returns what it materializes. */
        public <M> M handleWith(Flow<ByteString, ByteString, M> handler, ClassicActorSystemProvider system) {
            return handleWith(handler, Materializer.matFromSystem(system));
        }

        /** As {@link #handleWith(Flow, ClassicActorSystemProvider)}, with the materializer to use. */
        public <M> M handleWith(Flow<ByteString, ByteString, M> handler, Materializer materializer) {
            return handleWith(handler, materializer, true);
        }

        /**
         * Runs {@code handler} on this connection; with {@code onRingThread} false, on the materializer's default
         * dispatcher instead of the ring's (for a handler that blocks).
         */
        public <M> M handleWith(Flow<ByteString, ByteString, M> handler, Materializer materializer,
                                boolean onRingThread) {
            RunnableGraph<M> graph = flow().joinMat(handler, Keep.right());
            return (onRingThread && ringDispatcher != null ? graph.withAttributes(ActorAttributes.dispatcher(ringDispatcher)) : graph)
                    .run(materializer);
        }
    }

    /** A bound listener, as Pekko's {@code Tcp.ServerBinding}. */
    public static final class ServerBinding {
        private final InetSocketAddress localAddress;
        private final java.util.function.Supplier<CompletionStage<Void>> unbind;
        private final CompletionStage<Void> unbound;

        ServerBinding(InetSocketAddress localAddress, java.util.function.Supplier<CompletionStage<Void>> unbind,
                      CompletionStage<Void> unbound) {
            this.localAddress = localAddress;
            this.unbind = unbind;
            this.unbound = unbound;
        }

        /** The address the listener is bound to. */
        public InetSocketAddress localAddress() {
            return localAddress;
        }

        /** Stops accepting and closes the listening sockets; connections already accepted go on. */
        public CompletionStage<Void> unbind() {
            return unbind.get();
        }

        /** Completes once the listener is closed, by {@link #unbind()} or by a failure. */
        public CompletionStage<Done> whenUnbound() {
            return unbound.thenApply(v -> Done.getInstance());
        }
    }

    /** An established outgoing connection, as Pekko's {@code Tcp.OutgoingConnection}. */
    public record OutgoingConnection(InetSocketAddress remoteAddress, InetSocketAddress localAddress) {
    }
}
