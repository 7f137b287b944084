package dev.uringactors.samples;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pekko-http sample's routes, the same on both transports; and the line it prints once it listens. */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class PekkoHttpServerTest {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Map<PekkoHttpServer.Transport, RunningServer> servers = new EnumMap<>(PekkoHttpServer.Transport.class);
    private Path base;
    private byte[] download;

    @BeforeAll
    void startBoth() throws Exception {
        base = Files.createTempDirectory("pekko-http-sample");
        Path root = Files.createDirectory(base.resolve("root"));
        download = new byte[3 << 20];
        new Random(11).nextBytes(download);
        Files.write(root.resolve("data.bin"), download);
        Files.writeString(base.resolve("secret"), "outside the root");
        Files.createSymbolicLink(root.resolve("link"), base.resolve("secret"));
        Files.createDirectory(root.resolve("dir"));
        Optional<Path> served = Optional.of(root.toRealPath());
        for (PekkoHttpServer.Transport t : PekkoHttpServer.Transport.values()) {
            servers.put(t, RunningServer.start((address, bound) -> PekkoHttpServer.create(address, bound, t, served)));
        }
    }

    @AfterAll
    void stopBoth() throws Exception {
        servers.values().forEach(RunningServer::close);
        TempTree.delete(base);
    }

    @ParameterizedTest
    @EnumSource(PekkoHttpServer.Transport.class)
    void helloAtTheRoot(PekkoHttpServer.Transport t) throws Exception {
        HttpResponse<String> hello = send(t, HttpRequest.newBuilder(uri(t, "/")));
        assertEquals(200, hello.statusCode());
        assertEquals(PekkoHttpServer.HELLO, hello.body());
    }

    @ParameterizedTest
    @EnumSource(PekkoHttpServer.Transport.class)
    void jsonIsEchoedThroughJacksonAndNonJsonIsRefused(PekkoHttpServer.Transport t) throws Exception {
        String json = "{\"name\":\"ring\",\"sizes\":[1,2,3],\"nested\":{\"ok\":true,\"text\":\"é\"}}";
        HttpResponse<String> echoed = send(t, HttpRequest.newBuilder(uri(t, "/echo"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)));
        assertEquals(200, echoed.statusCode());
        assertEquals("application/json", echoed.headers().firstValue("Content-Type").orElseThrow());
        assertEquals(json, echoed.body());
        HttpResponse<String> broken = send(t, HttpRequest.newBuilder(uri(t, "/echo"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"unclosed\": [")));
        assertEquals(400, broken.statusCode());
    }

    @ParameterizedTest
    @EnumSource(PekkoHttpServer.Transport.class)
    void aFileDownloadIsIntactAndNothingOutsideTheRootIsServed(PekkoHttpServer.Transport t) throws Exception {
        HttpResponse<byte[]> file = client.send(HttpRequest.newBuilder(uri(t, "/files/data.bin"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, file.statusCode());
        assertEquals(String.valueOf(download.length), file.headers().firstValue("Content-Length").orElseThrow());
        assertArrayEquals(download, file.body());
        for (String refused : List.of("/files/link", "/files/..%2fsecret", "/files/dir", "/files/missing",
                "/files/%00", "/files/../secret")) {
            HttpResponse<String> r = send(t, HttpRequest.newBuilder(uri(t, refused)));
            assertEquals(404, r.statusCode(), refused);
            assertTrue(!r.body().contains("outside the root"), refused);
        }
        // Pekko HTTP resolves dot segments before routing: this one is the root, not a file.
        assertEquals(PekkoHttpServer.HELLO, send(t, HttpRequest.newBuilder(uri(t, "/files/%2e%2e"))).body());
    }

    @Test
    void theSamplePrintsWhereItListensAndOnWhichTransport() throws Exception {
        Process p = ProcessFailuresTest.java(Main.class.getName(), List.of("-During.rings=1"),
                "pekko-http", "--port", "0", "--transport", "pekko");
        try {
            String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertTrue(line != null && line.matches("pekko-http listening on 127\\.0\\.0\\.1:\\d+ \\(transport pekko\\)"),
                    String.valueOf(line));
        } finally {
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        }
    }

    private URI uri(PekkoHttpServer.Transport t, String path) {
        return URI.create("http://127.0.0.1:" + servers.get(t).address.getPort() + path);
    }

    private HttpResponse<String> send(PekkoHttpServer.Transport t, HttpRequest.Builder request) throws Exception {
        return client.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
