package dev.uringactors.samples;

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
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpServerTest {
    private static final String GET = "GET / HTTP/1.1\r\nHost: test\r\n\r\n";
    RunningServer running;
    InetSocketAddress server;

    @BeforeAll
    void start() throws Exception {
        running = RunningServer.start(HttpServer::create);
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
        String response = exchange("GET / HTTP/1.1\r\nConnection: close\r\n\r\n" + GET);
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
        String response = exchange("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello" + GET);
        assertEquals(2, count(response, "200 OK"), response);
    }

    @Test
    void malformedRequestsGetAnErrorStatusAndAClose() throws Exception {
        assertTrue(exchange("NONSENSE\r\n\r\n").startsWith("HTTP/1.1 400 Bad Request"));
        assertTrue(exchange("GET / HTTP/1.1\r\nX: " + "y".repeat(9000)).startsWith("HTTP/1.1 431"));
        assertTrue(exchange("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").startsWith("HTTP/1.1 501"));
    }

    @Test
    void parserWaitsForRequestsSplitAcrossReads() {
        HttpRequestParser parser = new HttpRequestParser();
        parser.append("GET / HT".getBytes(StandardCharsets.US_ASCII));
        assertNull(parser.next());
        parser.append("TP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
        HttpRequestParser.Request first = parser.next();
        assertEquals("/", first.target());
        assertTrue(first.keepAlive());
        assertNull(parser.next());
        parser.append("\r\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals("/a", parser.next().target());
    }
}
