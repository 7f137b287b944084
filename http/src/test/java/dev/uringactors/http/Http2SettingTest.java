package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.event.Logging;
import org.apache.pekko.http.impl.engine.http2.TelemetrySpi;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.scaladsl.Tcp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code pekko.http.server.enable-http2} changes, and what it does not: off, a server speaks HTTP/1.1 only,
 * as before; on, only {@code bind} and {@code bindSync} serve HTTP/2, and {@code bindFlow} and
 * {@code connectionSource} serve HTTP/1.1 with a warning that says so, as Pekko HTTP's own do; what the rings
 * cannot serve as Pekko HTTP does fails the bind.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Http2SettingTest {
    private final ActorTestKit off = ActorTestKit.create();
    private final ActorTestKit on = ActorTestKit.create(ConfigFactory.parseString(
            "pekko.http.server.enable-http2 = on").withFallback(ConfigFactory.load()));
    private final HttpClient http2Client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();

    @AfterAll
    void shutDown() {
        off.shutdownTestKit();
        on.shutdownTestKit();
    }

    @Test
    void offAServerSpeaksHttp11Only() throws Exception {
        ServerBinding binding = UringHttp.get(off.system()).newServerAt("127.0.0.1", 0)
                .bind(TestRoutes.routes(() -> CompletableFuture.completedFuture("slow")))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            assertServedHttp11(binding);
            assertEquals("HTTP/1.1", answerToThePreface(binding), "the HTTP/2 preface is read as HTTP/1.1");
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void onBindSyncServesHttp2() throws Exception {
        ServerBinding binding = UringHttp.get(on.system()).newServerAt("127.0.0.1", 0)
                .bindSync(request -> HttpResponse.create().withEntity("sync"))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            var response = http2Client.send(request(binding), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, response.version());
            assertEquals("sync", response.body());
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void onBindFlowServesHttp11AndWarns() throws Exception {
        TestProbe<Logging.Warning> warnings = warnings();
        ServerBinding binding = UringHttp.get(on.system()).newServerAt("127.0.0.1", 0)
                .bindFlow(Flow.of(HttpRequest.class).map(request -> HttpResponse.create().withEntity("flow")))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            assertWarned(warnings, "bindFlow serves HTTP/1.1 only");
            assertServedHttp11(binding);
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void onAConnectionSourceServesHttp11AndWarns() throws Exception {
        TestProbe<Logging.Warning> warnings = warnings();
        Materializer mat = Materializer.matFromSystem(on.system());
        ServerBinding binding = UringHttp.get(on.system()).newServerAt("127.0.0.1", 0).connectionSource()
                .to(Sink.foreach(connection -> connection.handleWithSyncHandler(
                        request -> HttpResponse.create().withEntity("source"), mat)))
                .run(mat).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            assertWarned(warnings, "connectionSource serves HTTP/1.1 only");
            assertServedHttp11(binding);
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Pekko HTTP's HTTP/2 binding hands a telemetry (as a monitoring agent installs one) each of Pekko's own TCP
     * connections; there are none on the rings, so the bind fails, saying why, rather than serve without it.
     */
    @Test
    void onWithATelemetryThatWatchesPekkosTcpTheBindFails() {
        ActorTestKit withTelemetry = ActorTestKit.create(ConfigFactory.parseString(
                "pekko.http.server.enable-http2 = on\npekko.http.http2-telemetry-class = \""
                        + AgentTelemetry.class.getName() + "\"").withFallback(ConfigFactory.load()));
        try {
            var bound = UringHttp.get(withTelemetry.system()).newServerAt("127.0.0.1", 0)
                    .bindSync(request -> HttpResponse.create()).toCompletableFuture();
            var failure = assertThrows(ExecutionException.class, () -> bound.get(10, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, failure.getCause());
            assertTrue(failure.getCause().getMessage().contains("pekko.http.http2-telemetry-class is set ("
                    + AgentTelemetry.class.getName() + ")"), failure.getCause().getMessage());
        } finally {
            withTelemetry.shutdownTestKit();
        }
    }

    /** A telemetry that passes everything through: Pekko HTTP's internal SPI, found by its configured name. */
    public static final class AgentTelemetry implements TelemetrySpi {
        public AgentTelemetry(org.apache.pekko.actor.ActorSystem system) {
        }

        @Override
        public org.apache.pekko.stream.scaladsl.BidiFlow<org.apache.pekko.http.scaladsl.model.HttpRequest,
                org.apache.pekko.http.scaladsl.model.HttpRequest, org.apache.pekko.http.scaladsl.model.HttpResponse,
                org.apache.pekko.http.scaladsl.model.HttpResponse, NotUsed> client() {
            return BidiFlow.fromFlows(Flow.<org.apache.pekko.http.scaladsl.model.HttpRequest>create(),
                    Flow.<org.apache.pekko.http.scaladsl.model.HttpResponse>create()).asScala();
        }

        @Override
        public org.apache.pekko.stream.scaladsl.Flow<Tcp.IncomingConnection, Tcp.IncomingConnection, NotUsed>
                serverBinding() {
            return Flow.<Tcp.IncomingConnection>create().asScala();
        }

        @Override
        public org.apache.pekko.stream.scaladsl.BidiFlow<org.apache.pekko.http.scaladsl.model.HttpResponse,
                org.apache.pekko.http.scaladsl.model.HttpResponse, org.apache.pekko.http.scaladsl.model.HttpRequest,
                org.apache.pekko.http.scaladsl.model.HttpRequest, NotUsed> serverConnection() {
            return BidiFlow.fromFlows(Flow.<org.apache.pekko.http.scaladsl.model.HttpResponse>create(),
                    Flow.<org.apache.pekko.http.scaladsl.model.HttpRequest>create()).asScala();
        }
    }

    /** The JDK's client asks for h2c by upgrade; the answer comes in HTTP/1.1. */
    private void assertServedHttp11(ServerBinding binding) throws Exception {
        var response = http2Client.send(request(binding), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals(HttpClient.Version.HTTP_1_1, response.version());
    }

    /** The first eight bytes of the answer to the HTTP/2 client preface. */
    private static String answerToThePreface(ServerBinding binding) throws Exception {
        try (Socket s = new Socket("127.0.0.1", binding.localAddress().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(Http2Test.PREFACE);
            InputStream in = s.getInputStream();
            return new String(in.readNBytes(8), StandardCharsets.US_ASCII);
        }
    }

    private TestProbe<Logging.Warning> warnings() {
        TestProbe<Logging.Warning> probe = on.createTestProbe(Logging.Warning.class);
        on.system().classicSystem().eventStream().subscribe(Adapter.toClassic(probe.getRef()),
                Logging.Warning.class);
        return probe;
    }

    private static void assertWarned(TestProbe<Logging.Warning> warnings, String saying) {
        warnings.fishForMessage(Duration.ofSeconds(10), "a warning saying " + saying,
                warning -> String.valueOf(warning.message()).contains(saying)
                        ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore());
    }

    private static java.net.http.HttpRequest request(ServerBinding binding) {
        return java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + binding.localAddress().getPort() + "/")).timeout(Duration.ofSeconds(10)).build();
    }
}
