package dev.uringactors.http.internal;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.internal.backend.IoBackend;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.stream.UringTcp;
import org.apache.pekko.Done;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.IncomingConnection;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.scaladsl.model.HttpRequest;
import org.apache.pekko.http.scaladsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * An HTTP server on {@link UringTcp}: each accepted connection gets Pekko HTTP's server stack and the handler,
 * run on the connection's ring thread, as {@code Http().newServerAt(...).bindFlow} runs them on Pekko's own TCP;
 * or Pekko HTTP's HTTP/2 server, as its {@code bind} runs it with {@code enable-http2}.
 * At most {@code max-connections} are served at once (the listener accepts only when a slot is free), and the
 * binding is Pekko HTTP's own {@link ServerBinding}: {@code unbind}, {@code terminate} with its deadline, and
 * coordinated shutdown behave as there. Under the JDK backend there is no ring: the stacks run where the
 * materializer says, and {@code connectionSource}'s on {@code uring.jdk.http-dispatcher}.
 */
public final class RingHttpServer {
    private final ClassicActorSystemProvider system;
    private final ServerStack stack;
    private final String host;
    private final int port;
    private final RouteDispatcher routes;
    private final PekkoHttpVersions versions;

    public RingHttpServer(ClassicActorSystemProvider system, ServerStack stack, String host, int port,
                          RouteDispatcher routes) {
        this(system, stack, host, port, routes, PekkoHttpVersions.ofClassPath());
    }

    /** With the Pekko HTTP versions to check at the start given, not read from the class path (for tests). */
    RingHttpServer(ClassicActorSystemProvider system, ServerStack stack, String host, int port, RouteDispatcher routes,
                   PekkoHttpVersions versions) {
        this.system = system;
        this.stack = stack;
        this.host = host;
        this.port = port;
        this.routes = routes;
        this.versions = versions;
    }

    /**
     * Binds and serves every connection with {@code handler} (materialized once per connection) over HTTP/1.1,
     * run where {@code routes} says. With a Pekko HTTP of another minor version on the class path
     * ({@link PekkoHttpVersions}), or a route dispatcher that does not exist, the binding fails at once.
     */
    public CompletionStage<ServerBinding> bind(Flow<HttpRequest, HttpResponse, ?> handler, Materializer materializer) {
        Flow<HttpRequest, HttpResponse, ?> placed = routes.place(handler);
        return serve((connections, incoming) -> connections.handling(placed, incoming.remoteAddress()), materializer,
                Optional.empty());
    }

    /**
     * Binds and serves every connection with Pekko HTTP's HTTP/2 server ({@code pekko.http.server.enable-http2}):
     * h2 negotiated by ALPN over TLS; without TLS, h2c with prior knowledge or by upgrade from HTTP/1.1. Each
     * request's {@code handler} call runs as a task of its own on the route dispatcher, or on its connection's
     * ring thread where there is none. With a Pekko HTTP of another minor version on the class path
     * ({@link PekkoHttpVersions}), a route dispatcher that does not exist, or with what the rings cannot give
     * ({@link ServerStack#http2Refusal()}), the binding fails at once.
     */
    public CompletionStage<ServerBinding> bindHttp2(Function<HttpRequest, CompletionStage<HttpResponse>> handler,
                                                    Materializer materializer) {
        UringExtension uring = UringExtension.get(Adapter.toTyped(system.classicSystem()));
        return serve((connections, incoming) -> connections.handlingHttp2(handler, incoming.remoteAddress(),
                system.classicSystem().dispatchers().lookup(routes.id().isEmpty()
                        ? uring.dispatcherId(incoming.ring()) : routes.id())), materializer, stack.http2Refusal());
    }

    private CompletionStage<ServerBinding> serve(
            BiFunction<ServerStack.Connections, UringTcp.IncomingConnection,
                    Flow<ByteString, ByteString, CompletionStage<Done>>> handling,
            Materializer materializer, Optional<? extends RuntimeException> protocolRefusal) {
        Optional<RuntimeException> refusal = versions.refusal().<RuntimeException>map(e -> e)
                .or(() -> routes.refusal(system.classicSystem()))
                .or(() -> protocolRefusal);
        if (refusal.isPresent()) {
            return CompletableFuture.failedStage(refusal.get());
        }
        ServerStack.Connections connections = stack.newConnections(materializer.executionContext());
        return tcpConnections()
                .mapAsyncUnordered(stack.settings().maxConnections(), incoming -> incoming
                        .handleWith(handling.apply(connections, incoming), materializer)
                        // A connection that fails (a reset peer, say) frees its slot; it must not fail the listener.
                        .exceptionally(failure -> Done.getInstance()))
                .to(Sink.ignore())
                .run(materializer)
                .thenApply(connections::binding);
    }

    /**
     * The connections as Pekko HTTP's {@link IncomingConnection}s. Each one's HTTP stack and socket run on its
     * ring's thread, in an island of their own; the handler joined to it runs where its materializer says. With
     * a Pekko HTTP of another minor version on the class path, the source fails when it is run.
     */
    public Source<IncomingConnection, CompletionStage<ServerBinding>> connectionSource() {
        Optional<IllegalStateException> refusal = versions.refusal();
        if (refusal.isPresent()) {
            return Source.<IncomingConnection>failed(refusal.get())
                    .mapMaterializedValue(notUsed -> CompletableFuture.failedStage(refusal.get()));
        }
        IoBackend backend = IoBackends.get(Adapter.toTyped(system.classicSystem()));
        ServerStack.Connections connections = stack.newConnections(system.classicSystem().dispatcher());
        return tcpConnections()
                .map(incoming -> connections.incoming(incoming, backend.stackDispatcherId(incoming.ring())))
                .mapMaterializedValue(bound -> bound.thenApply(connections::binding));
    }

    /** Pekko HTTP binds with TCP half-close off and the idle timeout left to the HTTP stack. */
    private Source<UringTcp.IncomingConnection, CompletionStage<UringTcp.ServerBinding>> tcpConnections() {
        return UringTcp.get(system).bind(host, port, stack.settings().backlog(),
                stack.settings().getSocketOptions(), false, Optional.empty());
    }
}
