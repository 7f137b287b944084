package dev.uringactors.samples;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class HttpServerTest {
    private static final String GET = "GET / HTTP/1.1\r\nHost: test\r\n\r\n";
    RunningServer running;
    InetSocketAddress server;

    @BeforeAll
    void start() throws Exception {
        running = RunningServer.start(HttpServer::create, "samples.http.head-timeout = 1s");
        server = running.address;
    }

    @AfterAll
    void stop() {
        running.close();
    }

    /** Sends {@code request} as it is, half-closes, and returns everything the server sent until it closed. */
    private String exchange(String request) throws Exception {
        try (Socket s = new Socket(server.getAddress(), server.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            return all.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void theJdkHttpClientGetsHelloWorldOverKeepAlive() throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI uri = URI.create("http://127.0.0.1:" + server.getPort() + "/");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("Hello, world!\n", r.body());
            assertEquals("14", r.headers().firstValue("content-length").orElseThrow());
        }
    }

    @Test
    void everyResponseCarriesTheDateAnOriginServerOwes() throws Exception {
        String response = exchange(GET + "GET /missing HTTP/1.1\r\nHost: t\r\n\r\n"
                + "DELETE / HTTP/1.1\r\nHost: t\r\n\r\n" + GET + "NONSENSE\r\n\r\n");
        Instant now = Instant.now();
        List<Instant> dates = new ArrayList<>();
        for (String line : response.split("\r\n")) {
            if (line.startsWith("Date: ")) {
                dates.add(DateTimeFormatter.RFC_1123_DATE_TIME.parse(line.substring(6), Instant::from));
            }
        }
        assertEquals(5, count(response, "HTTP/1.1 "), response);
        assertEquals(5, dates.size(), response);
        for (Instant date : dates) {
            assertTrue(Math.abs(Duration.between(date, now).toSeconds()) <= 5, date + " is not now: " + now);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderOnOneConnection() throws Exception {
        String response = exchange(GET + "GET /missing HTTP/1.1\r\nHost: t\r\n\r\n" + GET);
        assertEquals(3, count(response, "HTTP/1.1 "));
        int ok1 = response.indexOf("200 OK");
        int notFound = response.indexOf("404 Not Found");
        int ok2 = response.indexOf("200 OK", ok1 + 1);
        assertTrue(ok1 >= 0 && ok1 < notFound && notFound < ok2, response);
    }

    @Test
    void connectionCloseIsHonouredAfterTheResponse() throws Exception {
        String response = exchange("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" + GET);
        assertEquals(1, count(response, "HTTP/1.1 200"), "nothing after the closing request: " + response);
        assertTrue(response.contains("Connection: close"));
    }

    @Test
    void http10ClosesUnlessAskedToKeepAlive() throws Exception {
        assertEquals(1, count(exchange("GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\n\r\n"), "200 OK"));
        assertEquals(2, count(exchange("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.0\r\n\r\n"),
                "200 OK"));
    }

    @Test
    void aBodyWithContentLengthIsSkippedAndTheNextRequestAnswered() throws Exception {
        String response = exchange("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello" + GET);
        assertEquals(2, count(response, "200 OK"), response);
    }

    @Test
    void malformedRequestsGetAnErrorStatusAndAClose() throws Exception {
        assertTrue(exchange("NONSENSE\r\n\r\n").startsWith("HTTP/1.1 400 Bad Request"));
        assertTrue(exchange("GET / HTTP/1.1\r\nX: " + "y".repeat(9000)).startsWith("HTTP/1.1 431"));
        assertTrue(exchange("GET / HTTP/1.1\r\nX: " + "y".repeat(9000) + "\r\n\r\n").startsWith("HTTP/1.1 431"),
                "a head over the limit that arrives whole");
        assertTrue(exchange("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
                .startsWith("HTTP/1.1 501"));
    }

    @Test
    void parserWaitsForRequestsSplitAcrossReads() {
        HttpRequestParser parser = new HttpRequestParser();
        parser.append("GET / HT".getBytes(StandardCharsets.US_ASCII));
        assertNull(parser.next());
        parser.append("TP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        HttpRequestParser.Request first = parser.next();
        assertEquals("/", first.target());
        assertTrue(first.keepAlive());
        assertNull(parser.next());
        parser.append("\r\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals("/a", parser.next().target());
    }

    /** Requests, one connection each, until a new connection is served: the rings are answering. */
    private void assertStillServing() throws Exception {
        for (int i = 0; i < 20; i++) {
            assertTrue(exchange(GET).startsWith("HTTP/1.1 200 OK"));
        }
    }

    @Test
    void aContentLengthThatWrapsALongIsRefusedAndTheRingsGoOnServing() throws Exception {
        for (String length : new String[] {"9223372036854775743", "9223372036854775807", "1" + "0".repeat(30)}) {
            String response = exchange("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: " + length + "\r\n\r\n" + GET);
            assertTrue(response.startsWith("HTTP/1.1 413 Content Too Large"), response);
            assertEquals(1, count(response, "HTTP/1.1 "), "one answer, then the close: " + response);
        }
        assertStillServing();
    }

    @Test
    void aTenMegabyteBodyIsRefusedFromItsHeadWithoutBeingRead() throws Exception {
        try (Socket s = new Socket(server.getAddress(), server.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10000000\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            // Answered before a byte of the body was sent: nothing of it is buffered.
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(response.startsWith("HTTP/1.1 413 Content Too Large"), response);
            assertTrue(response.contains("Connection: close"));
        }
        assertStillServing();
    }

    /**
     * A thousand connections opened at once (every connect issued before any is waited for), each asking once and
     * closing: every one is answered, none reset (the listen backlog holds the burst).
     */
    @Test
    void aThousandConnectionsAtOnceAreAllServed() throws Exception {
        List<SocketChannel> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 1000; i++) {
                SocketChannel client = SocketChannel.open();
                clients.add(client);
                client.configureBlocking(false);
                client.connect(server);
            }
            ByteBuffer request = StandardCharsets.ISO_8859_1.encode(
                    "GET / HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
            for (SocketChannel client : clients) {
                client.configureBlocking(true);
                client.socket().setSoTimeout(30_000);
                client.finishConnect();
                client.write(request.duplicate());
            }
            for (int i = 0; i < clients.size(); i++) {
                ByteArrayOutputStream answer = new ByteArrayOutputStream();
                clients.get(i).socket().getInputStream().transferTo(answer);
                assertTrue(answer.toString(StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 200 "),
                        "connection " + i + ": " + answer.toString(StandardCharsets.ISO_8859_1));
            }
        } finally {
            for (SocketChannel client : clients) {
                client.close();
            }
        }
    }

    @Test
    void rfc9112AnswersSeenFromAClient() throws Exception {
        String head = exchange("HEAD / HTTP/1.1\r\nHost: t\r\n\r\n");
        assertTrue(head.startsWith("HTTP/1.1 200 OK") && head.contains("Content-Length: 14"), head);
        assertTrue(head.endsWith("\r\n\r\n"), "HEAD gets no body: " + head);
        assertTrue(exchange("get / HTTP/1.1\r\nHost: t\r\n\r\n").startsWith("HTTP/1.1 501"), "methods are case-sensitive");
        assertTrue(exchange("M".repeat(4000) + " / HTTP/1.1\r\nHost: t\r\n\r\n").startsWith("HTTP/1.1 501"));
        String put = exchange("PUT / HTTP/1.1\r\nHost: t\r\n\r\n");
        assertTrue(put.startsWith("HTTP/1.1 405") && put.contains("Allow: GET, HEAD, POST"), put);
        assertTrue(exchange("GET / HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 400"), "no Host");
        assertTrue(exchange("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").startsWith("HTTP/1.1 400"), "two");
        assertTrue(exchange("G\u0001T / HTTP/1.1\r\nHost: t\r\n\r\n").startsWith("HTTP/1.1 400"));
        assertTrue(exchange("GET / HTTP/1.9\r\nHost: t\r\n\r\n").startsWith("HTTP/1.1 505"));
        assertTrue(exchange("GET / HTTP/1.1\nHost: t\n\n").startsWith("HTTP/1.1 200 OK"), "bare LF line ends");
        assertTrue(exchange("GET /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: t\r\n\r\n").startsWith("HTTP/1.1 414"));
        assertTrue(exchange("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab")
                .startsWith("HTTP/1.1 400"), "two lengths");
        String keepAlive10 = exchange("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        assertTrue(keepAlive10.contains("Connection: keep-alive"), keepAlive10);
        String both = exchange("GET / HTTP/1.1\r\nHost: t\r\nConnection: keep-alive, close\r\n\r\n" + GET);
        assertEquals(1, count(both, "HTTP/1.1 200"), "close wins: " + both);
    }

    @Test
    void expectContinueGetsAHundredContinueBeforeTheBodyIsSent() throws Exception {
        try (Socket s = new Socket(server.getAddress(), server.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("POST / HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            assertEquals("HTTP/1.1 100 Continue\r\n\r\n", new String(in.readNBytes(25), StandardCharsets.US_ASCII));
            s.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
            assertEquals("HTTP/1.1 200 OK", new String(in.readNBytes(15), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aSlowlorisIsAnswered408AndClosedWhileOthersAreServed() throws Exception {
        try (Socket slow = new Socket(server.getAddress(), server.getPort());
             Socket garbage = new Socket(server.getAddress(), server.getPort())) {
            slow.setSoTimeout(10_000);
            garbage.setSoTimeout(10_000);
            slow.getOutputStream().write("GET / HTTP/1.1\r\nHo".getBytes(StandardCharsets.US_ASCII));
            garbage.getOutputStream().write("no line end, ever".getBytes(StandardCharsets.US_ASCII));
            long start = System.nanoTime();
            assertStillServing();
            for (Socket s : new Socket[] {slow, garbage}) {
                String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertTrue(response.startsWith("HTTP/1.1 408 Request Timeout"), response);
            }
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertTrue(waited >= 900 && waited < 8_000, "closed after the 1 s head timeout, not " + waited + " ms");
        }
    }
}
