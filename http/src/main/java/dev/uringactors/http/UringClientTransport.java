package dev.uringactors.http;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.stream.UringTcp;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.ClientTransport;
import org.apache.pekko.http.scaladsl.Http;
import org.apache.pekko.http.scaladsl.settings.ClientConnectionSettings;
import org.apache.pekko.stream.scaladsl.Flow;
import org.apache.pekko.util.ByteString;
import scala.concurrent.Future;
import scala.concurrent.duration.Duration;
import scala.jdk.javaapi.FutureConverters;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * Pekko HTTP's client connections through the rings: its client transport SPI over
 * {@link UringTcp#outgoingConnection}, for the host connection pools ({@code Http.singleRequest},
 * {@code cachedHostConnectionPool}, {@code superPool}), {@code outgoingConnection} and the HTTP/2 client
 * ({@code Http.connectionTo(host)}). TLS, when asked for, runs above it, as it does above Pekko's own transport.
 * The client settings are honoured as Pekko's transport honours them: the connecting timeout, the idle timeout,
 * the local address and the socket options. A host name is looked up through Pekko's DNS extension, as there,
 * and never on a ring thread.
 *
 * <p>Set {@link #get()} with {@code ConnectionPoolSettings.withTransport} or
 * {@code ClientConnectionSettings.withTransport}, or take settings with it set from
 * {@link UringHttp#connectionPoolSettings()} and {@link UringHttp#clientConnectionSettings()}. Pekko HTTP has no
 * setting that names a transport, so the system's default pool settings keep Pekko's own. Under the JDK backend,
 * where no ring runs, it is Pekko's own transport.
 *
 * <p>It is written to Pekko's Scala SPI, which settings keep, so that settings given it compare equal however
 * often they are made: a transport written to the Java SPI is wrapped anew by each {@code withTransport}, and a
 * wrapper equals only itself, so each call of a line that made settings named a host connection pool of its own.
 */
public final class UringClientTransport implements org.apache.pekko.http.scaladsl.ClientTransport {
    private static final ClientTransport INSTANCE = ClientTransport.fromScala(new UringClientTransport());

    private UringClientTransport() {
    }

    /** The transport, for Pekko's Java API; it holds nothing of a system's, so one serves every system. */
    public static ClientTransport get() {
        return INSTANCE;
    }

    /** A connection to {@code host:port} through a ring, as Pekko's pools and clients ask for one. */
    @Override
    public Flow<ByteString, ByteString, Future<Http.OutgoingConnection>> connectTo(
            String host, int port, ClientConnectionSettings settings, ActorSystem system) {
        org.apache.pekko.actor.typed.ActorSystem<?> typed = Adapter.toTyped(system);
        UringExtension.get(typed); // as every entry point: the system's rings start now
        if (IoBackends.get(typed).runningRings() == 0) {
            // No ring runs (the JDK backend): this library's connections over Pekko IO would only cost more than
            // Pekko's own transport does (0.82x its requests a second in the http-client benchmark).
            return org.apache.pekko.http.scaladsl.ClientTransport.TCP().connectTo(host, port, settings, system);
        }
        Duration idle = settings.getIdleTimeout();
        return UringTcp.get(typed)
                .outgoingConnection(InetSocketAddress.createUnresolved(host, port), settings.getLocalAddress(),
                        settings.getSocketOptions(), true,
                        Optional.of(java.time.Duration.ofNanos(settings.getConnectingTimeout().toNanos())),
                        idle.isFinite() ? Optional.of(java.time.Duration.ofNanos(idle.toNanos())) : Optional.empty())
                .mapMaterializedValue(connected -> FutureConverters.asScala(connected.thenApply(c ->
                        new Http.OutgoingConnection(c.localAddress(), c.remoteAddress()))))
                .asScala();
    }
}
