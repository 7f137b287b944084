package dev.uringactors.samples;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.Fifo;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.samples.HttpExchange.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static dev.uringactors.samples.HttpExchange.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The file server's HTTP: every status and header it promises, and no byte from outside its root. */
@BothBackends
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FileServerTest {
    private static final String SECRET = "TOP-SECRET";
    private static final byte[] HELLO = "hello, files\n".getBytes(StandardCharsets.UTF_8);

    private Path base;
    private Path root;
    private byte[] medium;
    private RunningServer running;
    private InetSocketAddress server;

    @BeforeAll
    void start() throws Exception {
        base = Files.createTempDirectory("file-server-test");
        root = Files.createDirectories(base.resolve("root"));
        Path outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), SECRET);
        Files.writeString(base.resolve("secret.txt"), SECRET);
        Files.write(root.resolve("hello.txt"), HELLO);
        medium = new byte[200_000]; // beyond samples.files.whole-read-limit: sent with WriteFile
        new Random(11).nextBytes(medium);
        Files.write(root.resolve("medium.bin"), medium);
        Files.write(root.resolve("empty.txt"), new byte[0]);
        for (String name : new String[] {"a.html", "a.css", "a.js", "a.json", "a.png", "a.jpg", "a.svg", "a.wasm",
                "a.pdf", "a.unknown", "noextension"}) {
            Files.writeString(root.resolve(name), name);
        }
        Files.createDirectories(root.resolve("site"));
        Files.writeString(root.resolve("site/index.html"), "<p>site</p>");
        Path list = Files.createDirectories(root.resolve("list"));
        Files.writeString(list.resolve("b <script>.txt"), "x");
        Files.writeString(list.resolve("a&b.txt"), "x");
        Files.createDirectories(list.resolve("c-dir"));
        Files.createSymbolicLink(root.resolve("inside-link"), Path.of("hello.txt"));
        Files.createSymbolicLink(root.resolve("escape-link"), base.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("escape-dir"), outside);
        Files.createSymbolicLink(root.resolve("relative-escape"), Path.of("../secret.txt"));
        Files.createSymbolicLink(root.resolve("proc-link"), Path.of("/proc/self/root/" + base.resolve("secret.txt")));
        Fifo.create(root, "fifo");
        running = RunningServer.start((address, bound) -> FileServer.create(address, bound, root),
                "samples.http.head-timeout = 1s");
        server = running.address;
    }

    @AfterAll
    void stop() throws IOException {
        running.close();
        TempTree.delete(base);
    }

    private Response fetch(String request) throws IOException {
        try (HttpExchange c = new HttpExchange(server)) {
            return c.exchange(request);
        }
    }

    @Test
    void aFileComesWithItsLengthTypeAndValidators() throws IOException {
        Response r = fetch(get("/hello.txt", ""));
        assertEquals(200, r.status());
        assertArrayEquals(HELLO, r.body());
        assertEquals(String.valueOf(HELLO.length), r.header("content-length"));
        assertEquals("text/plain; charset=utf-8", r.header("content-type"));
        assertEquals("bytes", r.header("accept-ranges"));
        assertTrue(r.header("etag").matches("\"[0-9a-f]+-[0-9a-f]+\\.[0-9a-f]+\""), r.header("etag"));
        assertTrue(r.header("last-modified").matches("\\w{3}, \\d{2} \\w{3} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT"));
        assertTrue(r.header("date").endsWith(" GMT"));
    }

    @Test
    void aLargerFileIsSentWholeAndAnEmptyOneEmpty() throws IOException {
        Response r = fetch(get("/medium.bin", ""));
        assertEquals(200, r.status());
        assertArrayEquals(medium, r.body());
        Response empty = fetch(get("/empty.txt", ""));
        assertEquals(200, empty.status());
        assertEquals("0", empty.header("content-length"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            a.html      | text/html; charset=utf-8
            a.css       | text/css; charset=utf-8
            a.js        | text/javascript; charset=utf-8
            a.json      | application/json
            a.png       | image/png
            a.jpg       | image/jpeg
            a.svg       | image/svg+xml
            a.wasm      | application/wasm
            a.pdf       | application/pdf
            a.unknown   | application/octet-stream
            noextension | application/octet-stream
            """)
    void theContentTypeFollowsTheExtension(String name, String type) throws IOException {
        assertEquals(type, fetch(get("/" + name, "")).header("content-type"));
    }

    @Test
    void headGivesTheHeadersOfGetAndNoBody() throws IOException {
        try (HttpExchange c = new HttpExchange(server)) {
            Response head = c.exchange("HEAD /medium.bin HTTP/1.1\r\nHost: t\r\n\r\n");
            assertEquals(200, head.status());
            assertEquals(String.valueOf(medium.length), head.header("content-length"));
            Response next = c.exchange(get("/hello.txt", "")); // no body bytes came between the two
            assertArrayEquals(HELLO, next.body());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"POST", "PUT", "DELETE", "OPTIONS", "PATCH", "BREW"})
    void otherMethodsGet405WithAllow(String method) throws IOException {
        Response r = fetch(method + " /hello.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");
        assertEquals(405, r.status());
        assertEquals("GET, HEAD", r.header("allow"));
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderAndConnectionCloseEndsThem() throws IOException {
        try (HttpExchange c = new HttpExchange(server)) {
            c.send(get("/hello.txt", "") + get("/medium.bin", "") + get("/missing", "") + get("/a.css", "")
                    + get("/hello.txt", "Connection: close\r\n") + get("/hello.txt", ""));
            assertArrayEquals(HELLO, c.read(false).body());
            assertArrayEquals(medium, c.read(false).body());
            assertEquals(404, c.read(false).status());
            assertEquals("a.css", c.read(false).text());
            Response last = c.read(false);
            assertEquals("close", last.header("connection"));
            assertTrue(c.closedByServer(), "nothing after the request that asked to close");
        }
    }

    @Test
    void http10IsClosedAfterOneResponseUnlessItAsksForKeepAlive() throws IOException {
        try (HttpExchange c = new HttpExchange(server)) {
            Response r = c.exchange("GET /hello.txt HTTP/1.0\r\n\r\n");
            assertEquals(200, r.status());
            assertTrue(c.closedByServer());
        }
        try (HttpExchange c = new HttpExchange(server)) {
            Response r = c.exchange("GET /hello.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            assertEquals("keep-alive", r.header("connection"));
            assertEquals(200, c.exchange("GET /a.js HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").status());
        }
    }

    @Test
    void conditionalRequestsAnswer304() throws IOException {
        Response first = fetch(get("/hello.txt", ""));
        String etag = first.header("etag");
        String modified = first.header("last-modified");
        Response byTag = fetch(get("/hello.txt", "If-None-Match: " + etag + "\r\n"));
        assertEquals(304, byTag.status());
        assertEquals(etag, byTag.header("etag"));
        assertNull(byTag.header("content-length"));
        assertEquals(304, fetch(get("/hello.txt", "If-None-Match: \"x\", W/" + etag + "\r\n")).status());
        assertEquals(304, fetch(get("/hello.txt", "If-None-Match: *\r\n")).status());
        assertEquals(200, fetch(get("/hello.txt", "If-None-Match: \"other\"\r\n")).status());
        assertEquals(304, fetch(get("/hello.txt", "If-Modified-Since: " + modified + "\r\n")).status());
        assertEquals(200, fetch(get("/hello.txt", "If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT\r\n")).status());
        assertEquals(200, fetch(get("/hello.txt", "If-Modified-Since: yesterday\r\n")).status(), "a bad date");
        assertEquals(200, fetch(get("/hello.txt", "If-None-Match: \"other\"\r\nIf-Modified-Since: " + modified
                + "\r\n")).status(), "If-None-Match decides alone");
        try (HttpExchange c = new HttpExchange(server)) { // a 304 has no body: the next response follows at once
            assertEquals(304, c.exchange(get("/medium.bin", "If-None-Match: *\r\n")).status());
            assertArrayEquals(HELLO, c.exchange(get("/hello.txt", "")).body());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bytes=0-0           | 206 | 0  | 0
            bytes=12-12         | 206 | 12 | 12
            bytes=-1            | 206 | 12 | 12
            bytes=0-            | 206 | 0  | 12
            bytes=5-            | 206 | 5  | 12
            bytes=3-999999      | 206 | 3  | 12
            bytes=-999          | 206 | 0  | 12
            bytes=13-           | 416 | -1 | -1
            bytes=99-100        | 416 | -1 | -1
            bytes=-0            | 416 | -1 | -1
            bytes=0-1,3-4       | 200 | 0  | 12
            bytes=5-3           | 200 | 0  | 12
            bytes=x-y           | 200 | 0  | 12
            items=0-1           | 200 | 0  | 12
            """)
    void rangesGive206Or416OrTheWholeFile(String range, int status, int first, int last) throws IOException {
        Response r = fetch(get("/hello.txt", "Range: " + range + "\r\n"));
        assertEquals(status, r.status(), range);
        if (status == 206) {
            assertEquals("bytes " + first + "-" + last + "/" + HELLO.length, r.header("content-range"));
            assertArrayEquals(Arrays.copyOfRange(HELLO, first, last + 1), r.body());
        } else if (status == 416) {
            assertEquals("bytes */" + HELLO.length, r.header("content-range"));
        } else {
            assertArrayEquals(HELLO, r.body());
            assertNull(r.header("content-range"));
        }
    }

    @Test
    void aRangeOfALargeFileIsSentFromItsMiddle() throws IOException {
        Response r = fetch(get("/medium.bin", "Range: bytes=100000-199998\r\n"));
        assertEquals(206, r.status());
        assertArrayEquals(Arrays.copyOfRange(medium, 100_000, 199_999), r.body());
    }

    @Test
    void ifRangeAppliesTheRangeOnlyToTheSameVersion() throws IOException {
        Response first = fetch(get("/hello.txt", ""));
        String range = "Range: bytes=0-1\r\n";
        assertEquals(206, fetch(get("/hello.txt", range + "If-Range: " + first.header("etag") + "\r\n")).status());
        assertEquals(200, fetch(get("/hello.txt", range + "If-Range: \"stale\"\r\n")).status());
        assertEquals(206, fetch(get("/hello.txt", range + "If-Range: " + first.header("last-modified") + "\r\n"))
                .status());
        assertEquals(200, fetch(get("/hello.txt", range + "If-Range: Sat, 01 Jan 2000 00:00:00 GMT\r\n")).status());
    }

    @Test
    void aDirectoryRedirectsToItsSlashThenGivesItsIndex() throws IOException {
        Response redirect = fetch(get("/site?x=1", ""));
        assertEquals(301, redirect.status());
        assertEquals("/site/", redirect.header("location"));
        Response index = fetch(get("/site/", ""));
        assertEquals(200, index.status());
        assertEquals("<p>site</p>", index.text());
        assertEquals("text/html; charset=utf-8", index.header("content-type"));
    }

    @Test
    void aDirectoryWithoutIndexIsListedSortedAndEscaped() throws IOException {
        Response r = fetch(get("/list/", ""));
        assertEquals(200, r.status());
        String page = r.text();
        int a = page.indexOf(">a&amp;b.txt<");
        int b = page.indexOf(">b &lt;script&gt;.txt<");
        int c = page.indexOf(">c-dir/<");
        assertTrue(a > 0 && a < b && b < c, page);
        assertFalse(page.contains("<script>"), page);
        assertTrue(page.contains("href=\"./b%20%3Cscript%3E.txt\""), page);
        assertEquals(200, fetch(get("/", "")).status());
    }

    @Test
    void aSymlinkThatStaysInsideIsServed() throws IOException {
        assertArrayEquals(HELLO, fetch(get("/inside-link", "")).body());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "/../secret.txt", "/../../secret.txt", "/./../secret.txt", "/list/../../secret.txt",
        "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/.%2e/secret.txt", "/%2e./secret.txt",
        "/%2e%2e%2fsecret.txt", "/%2e%2e%2Fsecret.txt", "/list%2f..%2f..%2fsecret.txt", "/..%2fsecret.txt",
        "/..%5csecret.txt", "/%5c..%5csecret.txt", "/..\\secret.txt", "/%2e%2e%5csecret.txt",
        "/%252e%252e/secret.txt", "/%c0%ae%c0%ae/secret.txt", "/%c0%2e%c0%2e/secret.txt",
        "/%e0%80%ae%e0%80%ae/secret.txt", "/%c1%9c..%c1%9csecret.txt", "/hello.txt%00.html", "/%00",
        "/escape-link", "/escape-dir/secret.txt", "/escape-dir/", "/relative-escape", "/proc-link",
        "//" + "etc/passwd", "/%2fetc%2fpasswd", "/%2F%2Fetc%2Fpasswd", "/....//secret.txt",
        "/list/%2e%2e/%2e%2e/secret.txt", "/?/../secret.txt", "/.../secret.txt", "/%c0%af..%c0%afsecret.txt",
        "http://t/../secret.txt", "http://t/%2e%2e/secret.txt"})
    void noTargetReachesAFileOutsideTheRoot(String target) throws IOException {
        Response r = fetch("GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n");
        assertFalse(r.text().contains(SECRET), target + " gave the secret");
        assertFalse(r.text().contains("root:"), target + " gave /etc/passwd");
        if (!target.startsWith("/?")) { // a query is no path: "/?/../x" is the root's listing
            assertTrue(r.status() == 403 || r.status() == 404, target + ": " + r.status());
        }
    }

    /**
     * A FIFO is no file to serve: 403 at once, on either backend, however many ask; files are served meanwhile.
     * On the JDK backend each request's open waited for a writer, and 70 of them held every thread that opens
     * files.
     */
    @Test
    void aFifoIsRefusedAtOnceAndHoldsNothingUp() throws IOException {
        for (int i = 0; i < 80; i++) {
            assertEquals(403, fetch(get("/fifo", "")).status());
        }
        assertArrayEquals(HELLO, fetch(get("/hello.txt", "")).body());
    }

    @Test
    void anAbsoluteFormTargetIsServedByItsPath() throws IOException {
        assertArrayEquals(HELLO, fetch(get("http://test/hello.txt?x", "")).body());
    }

    @Test
    void malformedAndOversizedRequestsGetTheirStatus() throws IOException {
        assertEquals(400, fetch(get("/%zz", "")).status());
        assertEquals(400, fetch(get("/%u002e%u002e/secret.txt", "")).status(), "not percent-encoding");
        assertEquals(403, fetch(get("/%e0%80", "")).status(), "a truncated UTF-8 sequence");
        assertEquals(400, fetch("GET hello.txt HTTP/1.1\r\nHost: t\r\n\r\n").status());
        assertEquals(414, fetch(get("/" + "a".repeat(5000), "")).status());
        assertEquals(431, fetch(get("/hello.txt", "X: " + "y".repeat(9000) + "\r\n")).status());
    }

    @Test
    void aSlowlorisIsAnswered408() throws IOException {
        try (HttpExchange c = new HttpExchange(server)) {
            c.send("GET /hello.txt HTTP/1.1\r\nHost:");
            Response r = c.read(false); // samples.http.head-timeout = 1s here
            assertEquals(408, r.status());
            assertTrue(c.closedByServer());
        }
    }
}
