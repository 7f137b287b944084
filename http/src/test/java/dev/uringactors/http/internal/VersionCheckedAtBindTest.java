package dev.uringactors.http.internal;

import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.scaladsl.model.HttpRequest;
import org.apache.pekko.http.scaladsl.model.HttpResponse;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A Pekko HTTP of another minor version on the class path: the server refuses to bind, naming both versions. */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VersionCheckedAtBindTest {
    private final ActorTestKit testKit = ActorTestKit.create();
    private final PekkoHttpVersions mismatched = new PekkoHttpVersions("1.3.0", "1.4.0");

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void bindFails() {
        Flow<HttpRequest, HttpResponse, ?> handler = Flow.of(HttpRequest.class)
                .map(request -> (HttpResponse) org.apache.pekko.http.javadsl.model.HttpResponse.create());
        assertRefused(server().bind(handler, Materializer.matFromSystem(testKit.system())));
    }

    @Test
    void anHttp2BindFails() {
        assertRefused(server().bindHttp2(request -> CompletableFuture.completedFuture(
                (HttpResponse) org.apache.pekko.http.javadsl.model.HttpResponse.create()),
                Materializer.matFromSystem(testKit.system())));
    }

    @Test
    void aConnectionSourceFailsWhenRun() {
        assertRefused(server().connectionSource().to(Sink.ignore()).run(testKit.system()));
    }

    private RingHttpServer server() {
        ActorSystem classic = Adapter.toClassic(testKit.system());
        var settings = (ServerSettings) org.apache.pekko.http.javadsl.settings.ServerSettings.create(classic);
        ServerStack stack = new ServerStack(classic, settings, ConnectionContext.noEncryption(), classic.log());
        return new RingHttpServer(classic, stack, "127.0.0.1", 0, RouteDispatcher.chosen(""), mismatched);
    }

    private static void assertRefused(CompletionStage<?> binding) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> binding.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("Pekko HTTP 1.3.0, but Pekko HTTP 1.4.0"),
                e.getCause().getMessage());
    }
}
