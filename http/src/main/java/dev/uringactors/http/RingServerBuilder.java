package dev.uringactors.http;

import dev.uringactors.http.internal.RingHttpServer;
import dev.uringactors.http.internal.RouteDispatcher;
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

    @Override
    public CompletionStage<ServerBinding> bind(Function<HttpRequest, CompletionStage<HttpResponse>> handler) {
        return bindFlow(Flow.of(HttpRequest.class).mapAsync(settings.getPipeliningLimit(), handler::apply));
    }

    @Override
    public CompletionStage<ServerBinding> bind(HandlerProvider provider) {
        return bind(provider.handler(system));
    }

    @Override
    public CompletionStage<ServerBinding> bindSync(Function<HttpRequest, HttpResponse> handler) {
        return bindFlow(Flow.of(HttpRequest.class).map(handler::apply));
    }

    @Override
    @SuppressWarnings("unchecked") // Pekko HTTP's Java model types are its Scala model types
    public CompletionStage<ServerBinding> bindFlow(Flow<HttpRequest, HttpResponse, ?> handler) {
        return server().bind((Flow<org.apache.pekko.http.scaladsl.model.HttpRequest,
                org.apache.pekko.http.scaladsl.model.HttpResponse, ?>) (Flow<?, ?, ?>) handler, materializer);
    }

    @Override
    public Source<IncomingConnection, CompletionStage<ServerBinding>> connectionSource() {
        return server().connectionSource();
    }

    private RingHttpServer server() {
        ServerStack stack = new ServerStack(system.classicSystem(),
                (org.apache.pekko.http.scaladsl.settings.ServerSettings) settings,
                context, log);
        return new RingHttpServer(system, stack, host, port, routes);
    }
}
