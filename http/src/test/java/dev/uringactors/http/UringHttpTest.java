package dev.uringactors.http;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Pekko HTTP route served through {@link UringHttp}, as a client sees it: routes, errors, keep-alive and
 * pipelining, large bodies both ways, the thread that runs the route, and the sockets after unbinding.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class UringHttpTest {
    private final ActorTestKit testKit = ActorTestKit.create();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private ServerBinding binding;
    private int port;

    @BeforeAll
    void bind() throws Exception {
        binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bind(TestRoutes.routes(() -> CompletableFuture.completedFuture("slow")))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        port = binding.localAddress().getPort();
    }

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aRouteAnswersAndAnUnknownPathIs404() throws Exception {
        HttpResponse<String> hello = get("/");
        assertEquals(200, hello.statusCode());
        assertEquals(TestRoutes.HELLO, hello.body());
        assertEquals("text/plain; charset=UTF-8", hello.headers().firstValue("Content-Type").orElseThrow());
        assertEquals(404, get("/nowhere").statusCode());
    }

    @Test
    void aConnectionSourceServesWhatItsConsumerHandles() throws Exception {
        Materializer mat = Materializer.matFromSystem(testKit.system());
        ServerBinding source = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0).connectionSource()
                .to(Sink.foreach(connection -> connection.handleWithSyncHandler(request -> org.apache.pekko.http
                        .javadsl.model.HttpResponse.create().withEntity("from " + connection.remoteAddress()), mat)))
                .run(mat).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Socket s = new Socket("127.0.0.1", source.localAddress().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(response.endsWith("from /127.0.0.1:" + s.getLocalPort()), response);
        } finally {
            source.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    @Tag("io-uring-only") // no ring thread under the JDK backend
    void theRouteRunsOnTheConnectionsRingThread() throws Exception {
        String thread = get("/thread").body();
        assertTrue(thread.startsWith("uring-ring-"), thread);
    }

    @Test
    void aMalformedRequestGets400AndTheConnectionCloses() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(response.startsWith("HTTP/1.1 400 Bad Request"), response);
        }
    }

    @Test
    void pipelinedRequestsOnOneConnectionAreAnsweredInOrder() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(("GET /bytes/5 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int first = all.indexOf("HTTP/1.1 200 OK");
            int second = all.indexOf("HTTP/1.1 404 Not Found");
            int third = all.indexOf("HTTP/1.1 200 OK", second);
            assertTrue(first == 0 && second > first && third > second, all);
            assertTrue(all.endsWith(TestRoutes.HELLO), all);
        }
    }

    @Test
    void keepAliveServesManyRequestsOnOneConnection() throws Exception {
        try (Socket s = connect()) {
            InputStream in = s.getInputStream();
            for (int i = 0; i < 100; i++) {
                s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                String head = readHead(in);
                assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
                assertEquals(TestRoutes.HELLO, new String(in.readNBytes(TestRoutes.HELLO.length()),
                        StandardCharsets.US_ASCII));
            }
        }
    }

    @Test
    void aTenMebibyteRequestBodyComesBackIntact() throws Exception {
        byte[] body = new byte[10 << 20];
        new Random(7).nextBytes(body);
        HttpResponse<byte[]> echoed = client.send(HttpRequest.newBuilder(uri("/echo"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, echoed.statusCode());
        assertArrayEquals(body, echoed.body());
    }

    @Test
    void aBodyStreamedBackWhileItIsSentArrivesIntact() throws Exception {
        int size = 10 << 20;
        byte[] body = TestRoutes.pattern(3, size);
        try (Socket s = connect()) {
            Thread sender = new Thread(() -> {
                try {
                    s.getOutputStream().write(("POST /stream-echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + size
                            + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().write(body);
                } catch (IOException e) {
                    // the reader below sees the connection end short
                }
            });
            sender.start();
            String head = readHead(s.getInputStream());
            assertTrue(head.startsWith("HTTP/1.1 200 OK") && head.contains("chunked"), head);
            ByteArrayOutputStream received = new ByteArrayOutputStream(size);
            String line;
            while (!(line = readLine(s.getInputStream())).equals("0")) {
                received.write(s.getInputStream().readNBytes(Integer.parseInt(line, 16)));
                readLine(s.getInputStream());
            }
            sender.join(10_000);
            assertArrayEquals(body, received.toByteArray());
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) {
                throw new IOException("the connection ended within a chunk line");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    @Test
    void aTenMebibyteStreamedResponseArrivesIntact() throws Exception {
        int size = 10 << 20;
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(uri("/bytes/" + size))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, response.statusCode());
        assertArrayEquals(TestRoutes.pattern(0, size), response.body());
    }

    @Test
    void peersThatResetInEveryPhaseLeaveNoSocketAndOthersAreStillServed() throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        String[] phases = {"", "GET / HTTP/1.1\r\nHost: x\r\nX-Partial: ", "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nsome of the body"};
        for (int round = 0; round < 25; round++) {
            for (String phase : phases) {
                Socket s = connect();
                s.getOutputStream().write(phase.getBytes(StandardCharsets.US_ASCII));
                s.setSoLinger(true, 0);
                s.close(); // a reset: before, during and after a request, and in the middle of a body
            }
        }
        try (Socket s = connect()) {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertTrue(readHead(s.getInputStream()).startsWith("HTTP/1.1 200 OK"), "still serving");
        }
        sockets.assertNoneNew("sockets left behind");
    }

    @Test
    void afterTerminateNoSocketOfTheServerRemains() throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        ServerBinding other = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bindSync(request -> org.apache.pekko.http.javadsl.model.HttpResponse.create().withEntity("sync"))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Socket s = new Socket("127.0.0.1", other.localAddress().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertTrue(readHead(s.getInputStream()).startsWith("HTTP/1.1 200 OK"));
            OpenFds.Snapshot server = OpenFds.snapshot(OpenFds.Kind.socketsOnPort(other.localAddress().getPort()));
            assertEquals(2, server.fds().size(), "the listener, and the connection's end on the server: " + server);
            other.terminate(Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals("sync", new String(s.getInputStream().readNBytes(4), StandardCharsets.US_ASCII));
            assertConnectionEnds(s); // idle: ended at once (Pekko HTTP fails it, so the peer may see a reset)
        }
        sockets.assertNoneNew("sockets after terminate");
    }

    /** The peer's read ends: end of stream, or a reset. */
    static void assertConnectionEnds(Socket s) throws IOException {
        try {
            assertEquals(-1, s.getInputStream().read(), "nothing more from the server");
        } catch (java.net.SocketException reset) {
            assertTrue(String.valueOf(reset.getMessage()).contains("reset"), reset.toString());
        }
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        return s;
    }

    /** The response head up to its blank line. */
    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection ended within a head: " + head);
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }
}
