package dev.uringactors.http.internal;

import com.typesafe.config.Config;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.javadsl.Flow;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Where a server's routes run: on the ring of each connection ({@code id} empty), or on the Pekko dispatcher
 * {@code id}, in an island of their own, while the HTTP stack and the socket stay on the ring.
 *
 * @param id     the dispatcher's id, or "" for the ring
 * @param origin what chose it, for the error that names a dispatcher that does not exist
 */
public record RouteDispatcher(String id, String origin) {
    /** The setting that chooses it for every server. */
    public static final String SETTING = "uring.http.route-dispatcher";

    public RouteDispatcher {
        Objects.requireNonNull(id, "the route dispatcher's id (\"\" for the ring)");
    }

    /** As {@code uring.http.route-dispatcher} says. */
    public static RouteDispatcher configured(Config config) {
        return new RouteDispatcher(config.getString(SETTING), SETTING);
    }

    /** As a server's builder chose it. */
    public static RouteDispatcher chosen(String id) {
        return new RouteDispatcher(id, "withRouteDispatcher");
    }

    /** Why a server cannot bind with it: it names a dispatcher that {@code system} does not have. */
    public Optional<IllegalArgumentException> refusal(ActorSystem system) {
        if (id.isEmpty() || system.dispatchers().hasDispatcher(id)) {
            return Optional.empty();
        }
        return Optional.of(new IllegalArgumentException(origin + " = \"" + id + "\": no such dispatcher is "
                + "configured; define it (e.g. " + id + " { type = Dispatcher, executor = thread-pool-executor, "
                + "thread-pool-executor.fixed-pool-size = 16 }), or use \"\" to run routes on the rings"));
    }

    /** {@code route} where it is to run. */
    public <I, O, M> Flow<I, O, M> place(Flow<I, O, M> route) {
        return id.isEmpty() ? route : route.async(id);
    }

    /**
     * {@code route} where it is to run, for a server that takes a function (Pekko's transport): each call made on
     * the dispatcher, or as it is where no dispatcher was chosen. Run {@link #refusal} first.
     */
    public Function<HttpRequest, CompletionStage<HttpResponse>> placeAsync(
            ActorSystem system, Function<HttpRequest, CompletionStage<HttpResponse>> route) {
        if (id.isEmpty()) {
            return route;
        }
        Executor dispatcher = system.dispatchers().lookup(id);
        return request -> CompletableFuture.supplyAsync(() -> HandlerCall.call(route, request), dispatcher)
                .thenCompose(answer -> answer);
    }
}
