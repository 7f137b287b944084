package dev.uringactors.actors.stream;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.internal.tcp.pekko.PekkoOptions;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * {@link UringTcp}'s outgoing connections under the JDK backend: Pekko's own Streams {@code Tcp}, given what
 * {@code uring.tcp} would have given a ring's socket (TCP_NODELAY, the idle timeout), wrapped in this library's
 * types. (Its binds are the actors' own, {@link TcpBindStage}: Pekko Streams' bind retries a failed accept at once.)
 */
final class PekkoTcp {
    private PekkoTcp() {
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
