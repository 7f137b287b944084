package dev.uringactors.http;

import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.javadsl.HttpsConnectionContext;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.Materializer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Pekko HTTP's {@link ServerBuilder}, binding on the rings, with what only the rings need: where the routes run.
 * Immutable, as Pekko's is: each method returns a new builder.
 *
 * <p>By default a connection's route runs on the thread of the ring that carries the connection, beside its
 * parsing, rendering and socket: no thread hop per request, but a route that blocks (a JDBC call, a synchronous
 * client, a sleep) holds up every connection and actor on that ring for as long as it blocks.
 * {@link #withRouteDispatcher} moves the routes to a dispatcher of their own.
 */
public interface UringServerBuilder extends ServerBuilder {
    /**
     * Runs the routes (the handler given to {@code bind}, {@code bindFlow} or {@code bindSync}) on the Pekko
     * dispatcher {@code dispatcherId}, e.g. a {@code thread-pool-executor} sized for the calls that block; parsing,
     * rendering and the socket stay on the ring. {@code ""} runs them on the ring. This overrides
     * {@code uring.http.route-dispatcher}. An id with no dispatcher configured fails the bind, naming it.
     * ({@link #connectionSource()}'s connections are handled where their consumer's materializer runs, never on the
     * ring: this does not apply to them.)
     */
    UringServerBuilder withRouteDispatcher(String dispatcherId);

    /**
     * As Pekko HTTP's: {@link #bind(Function)} with the answer already there, so that with {@code enable-http2} on it
     * serves HTTP/2 as {@code bind} does.
     */
    @Override
    default CompletionStage<ServerBinding> bindSync(Function<HttpRequest, HttpResponse> handler) {
        Function<HttpRequest, CompletionStage<HttpResponse>> async =
                request -> CompletableFuture.completedFuture(handler.apply(request));
        return bind(async);
    }

    /** As {@link ServerBuilder#onInterface}. */
    @Override
    UringServerBuilder onInterface(String host);

    /** As {@link ServerBuilder#onPort}. */
    @Override
    UringServerBuilder onPort(int port);

    /** As {@link ServerBuilder#logTo}. */
    @Override
    UringServerBuilder logTo(LoggingAdapter log);

    /** As {@link ServerBuilder#withSettings}. */
    @Override
    UringServerBuilder withSettings(ServerSettings settings);

    /** As {@link ServerBuilder#adaptSettings}. */
    @Override
    UringServerBuilder adaptSettings(Function<ServerSettings, ServerSettings> f);

    /** As {@link ServerBuilder#enableHttps}. */
    @Override
    UringServerBuilder enableHttps(HttpsConnectionContext context);

    /** As {@link ServerBuilder#withMaterializer}. */
    @Override
    UringServerBuilder withMaterializer(Materializer materializer);
}
