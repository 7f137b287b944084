package dev.uringactors.actors.stream;

import dev.uringactors.actors.UringTcp;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.TLSProtocol;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.TLSPlacebo;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A Pekko HTTP route served over {@link UringTcp} (its server layer joined with each connection's flow by hand):
 * large JSON bodies, which make the connection suspend and resume reading and write more than its queue bound
 * at once, come back intact.
 */
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PekkoHttpOverUringTcpTest {
    @JUnit5TestKit
    ActorTestKit testKit = ActorTestKit.create();

    UringTcp.ServerBinding binding;

    @BeforeAll
    @SuppressWarnings("unchecked") // SessionBytes is an SslTlsInbound: Java's generics cannot see it
    void bindTheRoute() throws Exception {
        Materializer mat = Materializer.matFromSystem(testKit.system());
        Flow<HttpRequest, HttpResponse, NotUsed> echo = Flow.of(HttpRequest.class).mapAsync(1, request ->
                request.entity().withoutSizeLimit().toStrict(30_000, 16 << 20, mat).thenApply(strict -> HttpResponse.create()
                        .withEntity(ContentTypes.APPLICATION_JSON, strict.getData())));
        BidiFlow<HttpResponse, ByteString, ByteString, HttpRequest, NotUsed> server =
                Http.get(testKit.system()).serverLayer().atop((BidiFlow<TLSProtocol.SslTlsOutbound, ByteString,
                        ByteString, TLSProtocol.SslTlsInbound, NotUsed>) (BidiFlow<?, ?, ?, ?, ?>)
                        TLSPlacebo.getInstance());
        binding = UringTcp.get(testKit.system()).bind("127.0.0.1", 0)
                .to(Sink.foreach(connection -> connection.handleWith(echo.join(server), testKit.system())))
                .run(testKit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    void unbind() throws Exception {
        binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {300_000, 10_000_000})
    void aJsonBodyIsEchoedIntact(int size) throws Exception {
        byte[] json = json(size);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        var response = client.send(java.net.http.HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + "/echo"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(json)).build(),
                BodyHandlers.ofByteArray());
        assertEquals(200, response.statusCode(), () -> new String(response.body(), StandardCharsets.UTF_8));
        assertArrayEquals(json, response.body());
    }

    /** A JSON array of numbered objects, {@code size} bytes long. */
    private static byte[] json(int size) {
        StringBuilder b = new StringBuilder(size).append('[');
        for (int i = 0; b.length() < size - 40; i++) {
            b.append(i == 0 ? "" : ",").append("{\"n\":").append(i).append(",\"v\":\"x").append(i % 97).append("\"}");
        }
        while (b.length() < size - 1) {
            b.append(' ');
        }
        return b.append(']').toString().getBytes(StandardCharsets.US_ASCII);
    }
}
