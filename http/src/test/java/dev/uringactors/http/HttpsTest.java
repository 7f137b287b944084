package dev.uringactors.http;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** HTTPS: Pekko's TLS stage between the ring connection and the HTTP layer, with a certificate made here. */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class HttpsTest {
    private final ActorTestKit testKit = ActorTestKit.create();
    private ServerBinding binding;
    private HttpClient client;

    @BeforeAll
    void bindWithASelfSignedCertificate(@TempDir Path dir) throws Exception {
        SelfSigned certificate = SelfSigned.in(dir);
        binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .enableHttps(ConnectionContext.httpsServer(certificate.serverContext()))
                .bind(TestRoutes.routes(() -> CompletableFuture.completedFuture("slow")))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(certificate.clientContext()).build();
    }

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aRouteAnswersOverTls() throws Exception {
        HttpResponse<String> hello = client.send(request("/"), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, hello.statusCode());
        assertEquals(TestRoutes.HELLO, hello.body());
        assertTrue(hello.sslSession().isPresent());
    }

    @Test
    void aLargeResponseArrivesIntactOverTls() throws Exception {
        int size = 4 << 20;
        HttpResponse<byte[]> response = client.send(request("/bytes/" + size), HttpResponse.BodyHandlers.ofByteArray());
        assertArrayEquals(TestRoutes.pattern(0, size), response.body());
    }

    @Test
    void plainHttpToTheTlsPortGetsNoHttpResponse() throws Exception {
        try (Socket s = new Socket("127.0.0.1", binding.localAddress().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            byte[] answer = in.readNBytes(5);
            assertTrue(answer.length == 0 || answer[0] == 0x15, "a TLS alert or nothing, not HTTP");
        }
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + binding.localAddress().getPort() + path))
                .timeout(Duration.ofSeconds(30)).build();
    }
}
