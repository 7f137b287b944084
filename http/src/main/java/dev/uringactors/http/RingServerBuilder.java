package dev.uringactors.http;

import dev.uringactors.http.internal.HandlerCall;
import dev.uringactors.http.internal.RingHttpServer;
import dev.uringactors.http.internal.RouteDispatcher;
import dev.uringactors.http.internal.ServerDefaults;
import dev.uringactors.http.internal.ServerStack;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.HandlerProvider;
import org.apache.pekko.http.javadsl.HttpsConnectionContext;
import org.apache.pekko.http.javadsl.IncomingConnection;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Source;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The {@link UringServerBuilder} of {@link UringHttp}. */
record RingServerBuilder(ClassicActorSystemProvider system, String host, int port, ConnectionContext context,
                         LoggingAdapter log, ServerSettings settings, Materializer materializer,
                         RouteDispatcher routes)
        implements UringServerBuilder {

    @Override
    public UringServerBuilder withRouteDispatcher(String dispatcherId) {
        return new RingServerBuilder(system, host, port, context, log, settings, materializer,
                RouteDispatcher.chosen(dispatcherId));
    }

    @Override
    public UringServerBuilder onInterface(String newHost) {
        return new RingServerBuilder(system, newHost, port, context, log, settings, materializer, routes);
    }

    @Override
    public UringServerBuilder onPort(int newPort) {
        return new RingServerBuilder(system, host, newPort, context, log, settings, materializer, routes);
    }

    @Override
    public UringServerBuilder logTo(LoggingAdapter newLog) {
        return new RingServerBuilder(system, host, port, context, newLog, settings, materializer, routes);
    }

    @Override
    public UringServerBuilder withSettings(ServerSettings newSettings) {
        return new RingServerBuilder(system, host, port, context, log, newSettings, materializer, routes);
    }

    @Override
    public UringServerBuilder adaptSettings(Function<ServerSettings, ServerSettings> f) {
        try {
            return withSettings(f.apply(settings));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) { // Pekko's Function may throw what Java calls checked
            throw new IllegalArgumentException("adaptSettings: the function failed: " + e, e);
        }
    }

    @Override
    public UringServerBuilder enableHttps(HttpsConnectionContext newContext) {
        return new RingServerBuilder(system, host, port, newContext, log, settings, materializer, routes);
    }

    @Override
    public UringServerBuilder withMaterializer(Materializer newMaterializer) {
        return new RingServerBuilder(system, host, port, context, log, settings, newMaterializer, routes);
    }

    /** With {@code enable-http2} on, HTTP/2 and HTTP/1.1 on the one port, as Pekko HTTP's {@code bind}. */
    @Override
    public CompletionStage<ServerBinding> bind(Function<HttpRequest, CompletionStage<HttpResponse>> handler) {
        if (settings.enableHttp2()) {
            return server().bindHttp2(request -> scala(HandlerCall.call(handler, request)), materializer);
        }
        return bindHttp1(Flow.of(HttpRequest.class).mapAsync(settings.getPipeliningLimit(), handler::apply));
    }

    @Override
    public CompletionStage<ServerBinding> bind(HandlerProvider provider) {
        return bind(provider.handler(system));
    }

    /** HTTP/1.1 only; with {@code enable-http2} on it says so in a warning, as Pekko HTTP's does. */
    @Override
    public CompletionStage<ServerBinding> bindFlow(Flow<HttpRequest, HttpResponse, ?> handler) {
        warnIfHttp2("bindFlow");
        return bindHttp1(handler);
    }

    /** HTTP/1.1 only; with {@code enable-http2} on it says so in a warning, as Pekko HTTP's does. */
    @Override
    public Source<IncomingConnection, CompletionStage<ServerBinding>> connectionSource() {
        warnIfHttp2("connectionSource");
        return server().connectionSource();
    }

    @SuppressWarnings("unchecked") // Pekko HTTP's Java model types are its Scala model types
    private CompletionStage<ServerBinding> bindHttp1(Flow<HttpRequest, HttpResponse, ?> handler) {
        return server().bind((Flow<org.apache.pekko.http.scaladsl.model.HttpRequest,
                org.apache.pekko.http.scaladsl.model.HttpResponse, ?>) (Flow<?, ?, ?>) handler, materializer);
    }

    /** Pekko HTTP serves HTTP/2 only to a handler function; a flow or a connection source gets HTTP/1.1. */
    private void warnIfHttp2(String method) {
        if (settings.enableHttp2()) {
            log.warning("pekko.http.server.enable-http2 is on, but {} serves HTTP/1.1 only (as in Pekko HTTP): "
                    + "port {} answers HTTP/1.1. For HTTP/2, bind with a handler function (bind or bindSync).",
                    method, port);
        }
    }

    @SuppressWarnings("unchecked") // Pekko HTTP's Java model types are its Scala model types
    private static CompletionStage<org.apache.pekko.http.scaladsl.model.HttpResponse> scala(
            CompletionStage<HttpResponse> answer) {
        return (CompletionStage<org.apache.pekko.http.scaladsl.model.HttpResponse>) (CompletionStage<?>) answer;
    }

    private RingHttpServer server() {
        ServerStack stack = new ServerStack(system.classicSystem(),
                ServerDefaults.of(system.classicSystem().settings().config()).applyTo(settings), context, log);
        return new RingHttpServer(system, stack, host, port, routes);
    }
}
