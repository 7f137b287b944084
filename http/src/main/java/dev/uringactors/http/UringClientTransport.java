package dev.uringactors.http;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.stream.UringTcp;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.ClientTransport;
import org.apache.pekko.http.javadsl.OutgoingConnection;
import org.apache.pekko.http.javadsl.settings.ClientConnectionSettings;
import org.apache.pekko.http.scaladsl.Http;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.util.ByteString;
import scala.concurrent.duration.Duration;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Pekko HTTP's client connections through the rings: its {@link ClientTransport} SPI over
 * {@link UringTcp#outgoingConnection}, for the host connection pools ({@code Http.singleRequest},
 * {@code cachedHostConnectionPool}, {@code superPool}), {@code outgoingConnection} and the HTTP/2 client
 * ({@code Http.connectionTo(host)}). TLS, when asked for, runs above it, as it does above Pekko's own transport.
 * The client settings are honoured as Pekko's transport honours them: the connecting timeout, the idle timeout,
 * the local address and the socket options. A host name is looked up through Pekko's DNS extension, as there,
 * and never on a ring thread.
 *
 * <p>Set it with {@code ConnectionPoolSettings.withTransport} or {@code ClientConnectionSettings.withTransport},
 * or take settings with it set from {@link UringHttp#connectionPoolSettings()} and
 * {@link UringHttp#clientConnectionSettings()}. Pekko HTTP has no setting that names a transport, so the system's
 * default pool settings keep Pekko's own. Under the JDK backend, where no ring runs, it is Pekko's own transport.
 */
public final class UringClientTransport extends ClientTransport {
    private static final UringClientTransport INSTANCE = new UringClientTransport();

    private UringClientTransport() {
    }

    /** The transport; it holds nothing of a system's, so one serves every system. */
    public static UringClientTransport get() {
        return INSTANCE;
    }

    @Override
    public Flow<ByteString, ByteString, CompletionStage<OutgoingConnection>> connectTo(
            String host, int port, ClientConnectionSettings settings, ActorSystem system) {
        org.apache.pekko.actor.typed.ActorSystem<?> typed = Adapter.toTyped(system);
        UringExtension.get(typed); // as every entry point: the system's rings start now
        if (IoBackends.get(typed).runningRings() == 0) {
            // No ring runs (the JDK backend): this library's connections over Pekko IO would only cost more than
            // Pekko's own transport does (0.82x its requests a second in the http-client benchmark).
            return ClientTransport.TCP().connectTo(host, port, settings, system);
        }
        Duration idle = settings.getIdleTimeout();
        return UringTcp.get(typed)
                .outgoingConnection(InetSocketAddress.createUnresolved(host, port), settings.getLocalAddress(),
                        settings.getSocketOptions(), true,
                        Optional.of(java.time.Duration.ofNanos(settings.getConnectingTimeout().toNanos())),
                        idle.isFinite() ? Optional.of(java.time.Duration.ofNanos(idle.toNanos())) : Optional.empty())
                .mapMaterializedValue(connected -> connected.thenApply(c -> new OutgoingConnection(
                        new Http.OutgoingConnection(c.localAddress(), c.remoteAddress()))));
    }
}
