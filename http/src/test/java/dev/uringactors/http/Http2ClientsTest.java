package dev.uringactors.http;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * HTTP/2 on the rings as real clients see it ({@link Http2Servers}): the JDK's HttpClient (h2c by upgrade on
 * http://, h2 by ALPN on https://), and where installed curl (with nghttp2) and h2load. A client that offers only
 * HTTP/1.1 over TLS is served HTTP/1.1.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Http2ClientsTest {
    private static final Path CURL = Path.of("/usr/bin/curl");
    private static final Path H2LOAD = Path.of("/usr/bin/h2load");
    private Http2Servers servers;
    private Path dir;

    @BeforeAll
    void bind(@TempDir Path dir) throws Exception {
        this.dir = dir;
        servers = new Http2Servers(dir);
    }

    @AfterAll
    void shutDown() {
        servers.close();
    }

    @ParameterizedTest(name = "tls {0}")
    @ValueSource(booleans = {false, true})
    void theJdkClientSpeaksHttp2ByUpgradeOrAlpn(boolean tls) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .sslContext(servers.certificate.clientContext()).build();
        HttpResponse<String> hello = client.send(request(tls, "/").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(HttpClient.Version.HTTP_2, hello.version());
        assertEquals(TestRoutes.HELLO, hello.body());

        byte[] body = Http2Test.random(10 << 20, 17);
        HttpResponse<byte[]> echoed = client.send(request(tls, "/echo")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(HttpClient.Version.HTTP_2, echoed.version());
        assertEquals(Http2Test.crc(body), Http2Test.crc(echoed.body()), "every byte back");

        List<CompletableFuture<HttpResponse<byte[]>>> many = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.add(client.sendAsync(request(tls, "/bytes/" + (1000 + i)).build(),
                    HttpResponse.BodyHandlers.ofByteArray()));
        }
        for (int i = 0; i < many.size(); i++) {
            HttpResponse<byte[]> response = many.get(i).get(30, TimeUnit.SECONDS);
            assertEquals(HttpClient.Version.HTTP_2, response.version());
            assertArrayEquals(TestRoutes.pattern(0, 1000 + i), response.body());
        }
    }

    /** HTTP/1.1 after ALPN, with its requests' URIs saying https. */
    @Test
    void aTlsClientOfferingOnlyHttp11IsServedHttp11() throws Exception {
        try (SSLSocket socket = (SSLSocket) servers.certificate.clientContext().getSocketFactory()
                .createSocket("127.0.0.1", servers.port(true))) {
            socket.setSoTimeout(10_000);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"http/1.1"});
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            assertEquals("http/1.1", socket.getApplicationProtocol());
            socket.getOutputStream().write("GET /uri HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(response.startsWith("HTTP/1.1 200 OK"), response);
            assertTrue(response.endsWith("https://x/uri"), response);
        }
    }

    @Test
    void curlGetsHttp2WithPriorKnowledgeByUpgradeAndByAlpn() throws Exception {
        assumeCurlWithHttp2();
        assertEquals("2 200 " + TestRoutes.HELLO, curl("--http2-prior-knowledge", url(false, "/")));
        assertEquals("2 200 " + TestRoutes.HELLO, curl("--http2", url(false, "/")));
        assertEquals("2 200 " + TestRoutes.HELLO, curl("--http2", "--insecure", url(true, "/")));
        assertEquals("1.1 200 " + TestRoutes.HELLO, curl("--http1.1", "--insecure", url(true, "/")));
    }

    @Test
    void curlPostsTenMebibytesAndGetsThemBackWithPriorKnowledge() throws Exception {
        assumeCurlWithHttp2();
        byte[] body = Http2Test.random(10 << 20, 23);
        Path sent = Files.write(dir.resolve("sent"), body);
        Path received = dir.resolve("received");
        String status = run(CURL.toString(), "--silent", "--show-error", "--max-time", "60",
                "--http2-prior-knowledge", "--data-binary", "@" + sent, "--header",
                "Content-Type: application/octet-stream", "--output", received.toString(),
                "--write-out", "%{http_version} %{http_code}", url(false, "/echo"));
        assertEquals("2 200", status);
        assertEquals(Http2Test.crc(body), Http2Test.crc(Files.readAllBytes(received)), "every byte back");
    }

    @ParameterizedTest(name = "tls {0}")
    @ValueSource(booleans = {false, true})
    void h2loadGetsEveryAnswer(boolean tls) throws Exception {
        assumeTrue(Files.isExecutable(H2LOAD), H2LOAD + " is not installed (nghttp2-client)");
        String report = run(H2LOAD.toString(), "-n", "2000", "-c", "4", "-m", "16", url(tls, "/"));
        assertTrue(report.contains("2000 succeeded, 0 failed, 0 errored"), report);
        assertTrue(report.contains("Application protocol: " + (tls ? "h2" : "h2c")), report);
    }

    private void assumeCurlWithHttp2() throws Exception {
        assumeTrue(Files.isExecutable(CURL), CURL + " is not installed");
        assumeTrue(run(CURL.toString(), "--version").contains("HTTP2"), "this curl has no HTTP/2 (nghttp2)");
    }

    /** curl's answer as "version status body". */
    private String curl(String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of(CURL.toString(), "--silent", "--show-error", "--max-time",
                "30", "--write-out", " %{http_version} %{http_code}"));
        command.addAll(List.of(options));
        String out = run(command.toArray(String[]::new));
        int split = out.lastIndexOf(' ', out.lastIndexOf(' ') - 1);
        return out.substring(split + 1) + " " + out.substring(0, split);
    }

    /** Runs a command to its end (at most a minute); its standard output, or a failure with all it said. */
    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end within a minute");
        }
        String said = output.get(10, TimeUnit.SECONDS);
        assertEquals(0, process.exitValue(), String.join(" ", command) + ": " + said);
        return said;
    }

    private HttpRequest.Builder request(boolean tls, String path) {
        return HttpRequest.newBuilder(URI.create(url(tls, path))).timeout(Duration.ofSeconds(60));
    }

    private String url(boolean tls, String path) {
        return (tls ? "https" : "http") + "://127.0.0.1:" + servers.port(tls) + path;
    }
}
