package dev.uringactors.http;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.http.internal.RouteDispatcher;
import dev.uringactors.actors.PlainFuture;
import org.apache.pekko.actor.AbstractExtensionId;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Extension;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ClientConnectionSettings;
import org.apache.pekko.http.javadsl.settings.ConnectionPoolSettings;
import org.apache.pekko.http.javadsl.settings.ServerSettings;

import java.util.concurrent.CompletionStage;

/**
 * Pekko HTTP servers and clients on the rings. {@code UringHttp.get(system).newServerAt(host, port)} gives Pekko
 * HTTP's own {@link ServerBuilder}, so moving a server from {@code Http.get(system)} is a change of that one call;
 * routes, settings ({@code pekko.http.server.*}), HTTPS contexts and the {@code ServerBinding} are Pekko HTTP's. Each
 * connection's HTTP stack runs on the thread of the ring that carries it, and so does its route unless
 * {@code uring.http.route-dispatcher} or {@link UringServerBuilder#withRouteDispatcher} names a dispatcher for
 * routes that block.
 *
 * <p>With {@code pekko.http.server.enable-http2} on, {@code bind} and {@code bindSync} serve HTTP/2 as Pekko HTTP's
 * do: h2c (with prior knowledge, or upgraded from HTTP/1.1) without TLS, h2 chosen by ALPN with it, HTTP/1.1 to
 * clients that ask for nothing else; {@code bindFlow} and {@code connectionSource} serve HTTP/1.1, with a warning.
 *
 * <p>A server listens with a backlog of at least {@code uring.tcp.backlog}, on either backend (Pekko's 100
 * overflows under a burst of connections, and the kernel resets some of them); with
 * {@code uring.http.http2-resets-per-second} set, HTTP/2 resets are throttled where
 * {@code pekko.http.server.http2.frame-type-throttle.frame-types} names no frame type (a rapid-reset client is
 * cut off).
 *
 * <p>Under the JDK backend ({@code uring.backend}, see {@link UringExtension#backend()}) the same server stack runs
 * (refusing an HTTP/2 telemetry class as on the rings) over {@code UringTcp}'s JDK bind, Pekko IO's {@code Tcp} behind this library's listener, which out of file
 * descriptors pauses {@code uring.tcp.accept-backoff} as a ring does (Pekko HTTP's own binding, through Pekko
 * Streams' {@code Tcp}, retries a failed accept at once and logs each failure with its stack trace). Its
 * connections run on {@code uring.jdk.http-dispatcher}, whose threads have the ring threads' stack, deep enough for
 * Pekko HTTP's parser, which recurses once per request that a read brings ({@link ServerBuilder#withMaterializer}
 * moves them elsewhere); a route dispatcher, when chosen, still runs the routes.
 *
 * <p>Clients: {@link #singleRequest(HttpRequest)} sends a request through the system's pool for its host on the
 * rings, and its stage starts no thread. {@link #connectionPoolSettings()} and {@link #clientConnectionSettings()}
 * are Pekko's settings with the {@link UringClientTransport}, for a pool, a single request or an HTTP/2 client of
 * Pekko's API; they are made once per system, and equal however often they are asked for, so that Pekko's pool for
 * a host is one, not one per call.
 */
public final class UringHttp implements Extension {
    private static final Id ID = new Id();

    private final ClassicActorSystemProvider system;
    private final Http http;
    private final ConnectionPoolSettings pool;
    private final ClientConnectionSettings client;

    private UringHttp(ClassicActorSystemProvider system) {
        this.system = system;
        this.http = Http.get(system);
        this.pool = ConnectionPoolSettings.create(system.classicSystem()).withTransport(UringClientTransport.get());
        this.client = ClientConnectionSettings.create(system.classicSystem())
                .withTransport(UringClientTransport.get());
    }

    /** The entry point for a system (classic or typed): one per system. */
    public static UringHttp get(ClassicActorSystemProvider system) {
        return ID.get(system.classicSystem());
    }

    /**
     * A server builder for {@code host:port} (port 0 picks a free one), with {@code pekko.http.server} settings,
     * no encryption (see {@link ServerBuilder#enableHttps}), the system's materializer (under the JDK backend one on
     * {@code uring.jdk.http-dispatcher}), and routes run where
     * {@code uring.http.route-dispatcher} says (see {@link UringServerBuilder#withRouteDispatcher}). Assign it to a
     * {@link ServerBuilder} where only Pekko's API is wanted.
     */
    public UringServerBuilder newServerAt(String host, int port) {
        RouteDispatcher routes = RouteDispatcher.configured(system.classicSystem().settings().config());
        return new RingServerBuilder(system, host, port, ConnectionContext.noEncryption(),
                system.classicSystem().log(), ServerSettings.create(system.classicSystem()),
                IoBackends.get(Adapter.toTyped(system.classicSystem())).stackMaterializer(),
                routes);
    }

    /**
     * The system's host connection pool settings ({@code pekko.http.host-connection-pool}) with connections through
     * the rings ({@link UringClientTransport}): give them to {@code Http.singleRequest},
     * {@code cachedHostConnectionPool} or {@code superPool}.
     */
    public ConnectionPoolSettings connectionPoolSettings() {
        return pool;
    }

    /**
     * The system's client connection settings ({@code pekko.http.client}) with connections through the rings: for
     * {@code Http.outgoingConnection} and the HTTP/2 client's {@code withClientConnectionSettings}.
     */
    public ClientConnectionSettings clientConnectionSettings() {
        return client;
    }

    /**
     * {@code request} through the system's host connection pool for its host, connected through the rings
     * ({@link #connectionPoolSettings()}), as {@code Http.singleRequest} sends it. The stage completes on the
     * thread that brings the response, and runs its callbacks there ({@link PlainFuture}): Pekko's own
     * {@code singleRequest} gives a stage that runs each callback on the JDK's default async executor, a new
     * thread per callback where the JVM sees two CPUs or fewer.
     */
    public CompletionStage<HttpResponse> singleRequest(HttpRequest request) {
        return singleRequest(request, pool);
    }

    /** {@link #singleRequest(HttpRequest)} through the pool of {@code settings}, on whichever transport they name. */
    public CompletionStage<HttpResponse> singleRequest(HttpRequest request, ConnectionPoolSettings settings) {
        return PlainFuture.of(http.singleRequest(request, http.defaultClientHttpsContext(), settings,
                system.classicSystem().log()), system);
    }

    /** The extension's id, for Pekko's registry. */
    private static final class Id extends AbstractExtensionId<UringHttp> {
        @Override
        public UringHttp createExtension(ExtendedActorSystem system) {
            return new UringHttp(system);
        }
    }
}
