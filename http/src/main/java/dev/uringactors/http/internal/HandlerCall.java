package dev.uringactors.http.internal;

import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.japi.function.Function;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A route given as a function, called so that a route that throws gives a failed answer, as a failed future. */
public final class HandlerCall {
    private HandlerCall() {
    }

    public static CompletionStage<HttpResponse> call(Function<HttpRequest, CompletionStage<HttpResponse>> route,
                                                     HttpRequest request) {
        try {
            return route.apply(request);
        } catch (Exception e) { // Pekko's Function may throw what Java calls checked
            return CompletableFuture.failedStage(e);
        }
    }
}
