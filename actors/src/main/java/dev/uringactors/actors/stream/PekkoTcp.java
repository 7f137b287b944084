package dev.uringactors.actors.stream;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.internal.tcp.pekko.PekkoOptions;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.io.Inet;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * {@link UringTcp} under the JDK backend: Pekko's own Streams {@code Tcp}, given what {@code uring.tcp} would have
 * given a ring's socket (the backlog, TCP_NODELAY, the idle timeout), and its connections and bindings wrapped in
 * this library's types.
 */
final class PekkoTcp {
    private PekkoTcp() {
    }

    static Source<UringTcp.IncomingConnection, CompletionStage<UringTcp.ServerBinding>> bind(ActorSystem<?> system,
            UringExtension uring, String host, int port, int backlog, Iterable<Inet.SocketOption> options,
            boolean halfClose, Optional<Duration> idleTimeout) {
        UringSettings.Tcp tcp = uring.settings().tcp();
        return Tcp.get(system).bind(host, port, tcp.backlogOr(backlog), PekkoOptions.of(tcp, options),
                        halfClose, idleTimeout.or(() -> Optional.ofNullable(tcp.idleTimeout())))
                .map(c -> new UringTcp.IncomingConnection(c.localAddress(), c.remoteAddress(), c.flow(),
                        uring.nextRing(), null))
                .mapMaterializedValue(bound -> ringLike(bound, "bind " + host + ":" + port)
                        .thenApply(b -> new UringTcp.ServerBinding(b.localAddress(),
                                () -> b.unbind().thenApply(unit -> null), b.whenUnbound().thenApply(done -> null))));
    }

    static Flow<ByteString, ByteString, CompletionStage<UringTcp.OutgoingConnection>> outgoingConnection(
            ActorSystem<?> system, UringExtension uring, InetSocketAddress remoteAddress, boolean halfClose) {
        UringSettings.Tcp tcp = uring.settings().tcp();
        if (remoteAddress.isUnresolved()) { // as on a ring: no name lookup here
            IllegalArgumentException refused = PekkoOptions.unresolved(remoteAddress);
            return Flow.fromSinkAndSourceMat(Sink.<ByteString>cancelled(), Source.<ByteString>failed(refused),
                    (in, out) -> CompletableFuture.failedFuture(refused));
        }
        return Tcp.get(system).outgoingConnection(remoteAddress, Optional.empty(), PekkoOptions.of(tcp, List.of()),
                        halfClose, Optional.empty(), Optional.ofNullable(tcp.idleTimeout()))
                .mapMaterializedValue(connected -> ringLike(connected, "connect " + remoteAddress).thenApply(c ->
                        new UringTcp.OutgoingConnection(c.remoteAddress(), c.localAddress())));
    }

    /** {@code stage}, failing as a ring's would: with the errno of a socket error ({@link PekkoOptions}). */
    private static <T> CompletionStage<T> ringLike(CompletionStage<T> stage, String operation) {
        return stage.handle((value, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                throw new CompletionException(PekkoOptions.asRingWouldSay(cause, operation));
            }
            return value;
        });
    }
}
