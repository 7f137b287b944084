package dev.uringactors.http;

import dev.uringactors.http.internal.RouteDispatcher;
import dev.uringactors.http.internal.ServerDefaults;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.javadsl.HandlerProvider;
import org.apache.pekko.http.javadsl.HttpsConnectionContext;
import org.apache.pekko.http.javadsl.IncomingConnection;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Source;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The {@link UringServerBuilder} of {@link UringHttp} under the JDK backend: Pekko HTTP's own builder, binding
 * through Pekko's transport, with the routes moved to the route dispatcher when one is chosen.
 */
record PekkoTransportServerBuilder(ClassicActorSystemProvider system, ServerBuilder pekko, RouteDispatcher routes)
        implements UringServerBuilder {

    @Override
    public UringServerBuilder withRouteDispatcher(String dispatcherId) {
        return new PekkoTransportServerBuilder(system, pekko, RouteDispatcher.chosen(dispatcherId));
    }

    @Override
    public UringServerBuilder onInterface(String host) {
        return with(pekko.onInterface(host));
    }

    @Override
    public UringServerBuilder onPort(int port) {
        return with(pekko.onPort(port));
    }

    @Override
    public UringServerBuilder logTo(LoggingAdapter log) {
        return with(pekko.logTo(log));
    }

    @Override
    public UringServerBuilder withSettings(ServerSettings settings) {
        return with(pekko.withSettings(settings));
    }

    @Override
    public UringServerBuilder adaptSettings(Function<ServerSettings, ServerSettings> f) {
        return with(pekko.adaptSettings(f));
    }

    @Override
    public UringServerBuilder enableHttps(HttpsConnectionContext context) {
        return with(pekko.enableHttps(context));
    }

    @Override
    public UringServerBuilder withMaterializer(Materializer materializer) {
        return with(pekko.withMaterializer(materializer));
    }

    @Override
    public CompletionStage<ServerBinding> bind(Function<HttpRequest, CompletionStage<HttpResponse>> handler) {
        return refusalOr(() -> withDefaults().bind(routes.placeAsync(system.classicSystem(), handler)));
    }

    @Override
    public CompletionStage<ServerBinding> bind(HandlerProvider provider) {
        return bind(provider.handler(system));
    }

    @Override
    public CompletionStage<ServerBinding> bindFlow(Flow<HttpRequest, HttpResponse, ?> handler) {
        return refusalOr(() -> withDefaults().bindFlow(routes.place(handler)));
    }

    @Override
    public Source<IncomingConnection, CompletionStage<ServerBinding>> connectionSource() {
        return withDefaults().connectionSource();
    }

    /** Pekko's builder with {@link ServerDefaults} applied to the settings it binds with. */
    private ServerBuilder withDefaults() {
        ServerDefaults defaults = ServerDefaults.of(system.classicSystem().settings().config());
        return pekko.adaptSettings(defaults::applyTo);
    }

    private UringServerBuilder with(ServerBuilder changed) {
        return new PekkoTransportServerBuilder(system, changed, routes);
    }

    /** {@code bind}, unless the route dispatcher does not exist. */
    private CompletionStage<ServerBinding> refusalOr(Supplier<CompletionStage<ServerBinding>> bind) {
        return routes.refusal(system.classicSystem())
                .<CompletionStage<ServerBinding>>map(CompletableFuture::failedStage)
                .orElseGet(bind);
    }
}
