package dev.uringactors.http;

import dev.uringactors.http.H2Client.Mode;
import dev.uringactors.http.H2Client.Response;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/2 on the rings with {@code pekko.http.server.enable-http2 = on}, through a client that speaks frames
 * ({@link H2Client}), each test for each way to HTTP/2: h2c with prior knowledge, h2c by upgrade from HTTP/1.1, and
 * h2 over TLS chosen by ALPN ({@link Http2Servers}).
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Http2Test {
    /** The client connection preface: RFC 9113, 3.4. */
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private Http2Servers servers;
    private LinkedBlockingQueue<CompletableFuture<String>> slow;

    @BeforeAll
    void bind(@TempDir Path dir) throws Exception {
        servers = new Http2Servers(dir);
        slow = servers.slow;
    }

    @AfterAll
    void shutDown() {
        servers.close();
    }

    @BeforeEach
    void noSlowRequestLeftOver() {
        slow.clear();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aGetIsAnsweredByTheRouteOnTheConnectionsRingThread(Mode mode) throws Exception {
        try (H2Client client = connect(mode)) {
            Response hello = await(client.get("/"));
            assertEquals(200, hello.status());
            assertEquals(TestRoutes.HELLO, hello.text());
            assertEquals(404, await(client.get("/nowhere")).status());
            String thread = await(client.get("/thread")).text();
            assertTrue(thread.startsWith("uring-ring-"), thread);
            String uri = await(client.get("/uri")).text();
            assertTrue(uri.startsWith(mode == Mode.TLS ? "https://" : "http://"), uri);
            if (mode == Mode.UPGRADE) {
                assertEquals(TestRoutes.HELLO, await(client.upgradeResponse()).text(), "the upgrade's own answer");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aTenMebibytePostIsEchoedIntact(Mode mode) throws Exception {
        byte[] body = random(10 << 20, 11);
        try (H2Client client = connect(mode)) {
            Response echoed = client.post("/echo", body).get(60, TimeUnit.SECONDS);
            assertEquals(200, echoed.status());
            assertEquals(body.length, echoed.body().length);
            assertEquals(crc(body), crc(echoed.body()), "every byte back");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aHundredStreamsAreInFlightAtOnceOnOneConnection(Mode mode) throws Exception {
        try (H2Client client = connect(mode)) {
            List<CompletableFuture<Response>> responses = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                responses.add(client.get("/slow"));
            }
            List<CompletableFuture<String>> handlers = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                CompletableFuture<String> waiting = slow.poll(10, TimeUnit.SECONDS);
                assertNotNull(waiting, "request " + i + " reached the route while the others wait");
                handlers.add(waiting);
            }
            Set<String> answers = new HashSet<>();
            for (int i = 0; i < handlers.size(); i++) {
                answers.add("answer " + i);
                handlers.get(i).complete("answer " + i);
            }
            Set<String> received = new HashSet<>();
            for (CompletableFuture<Response> response : responses) {
                Response r = await(response);
                assertEquals(200, r.status());
                received.add(r.text());
            }
            assertEquals(answers, received, "each stream its own answer");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aStreamResetMidBodyLeavesTheConnectionAndItsOtherStreamsServed(Mode mode) throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        byte[] other = random(4 << 20, 5);
        try (H2Client client = connect(mode)) {
            CompletableFuture<Response> alongside = client.post("/echo", other);
            H2Client.OpenStream cut = client.postPart("/stream-echo", random(64 << 10, 6));
            assertEquals(200, cut.status().get(10, TimeUnit.SECONDS), "the echo has begun");
            cut.reset();
            Response echoed = alongside.get(60, TimeUnit.SECONDS);
            assertEquals(crc(other), crc(echoed.body()), "the stream alongside, intact");
            assertEquals(TestRoutes.HELLO, await(client.get("/")).text(), "the connection still serves");
            assertFalse(client.closed().isDone());
        }
        try (H2Client another = connect(mode)) {
            assertEquals(TestRoutes.HELLO, await(another.get("/")).text(), "the server still serves");
        }
        sockets.assertNoneNew("sockets left open");
    }

    /**
     * A frame that breaks the protocol (the connection's window updated by 0, RFC 7540 6.9): GOAWAY with
     * PROTOCOL_ERROR, and the connection ends.
     */
    @Test
    void aProtocolErrorGetsGoAwayAndTheConnectionEnds() throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        try (Socket s = new Socket("127.0.0.1", servers.port(false))) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(PREFACE);
            s.getOutputStream().write(frame(4, 0, 0, new byte[0])); // an empty SETTINGS
            s.getOutputStream().write(frame(8, 0, 0, new byte[4])); // WINDOW_UPDATE by 0
            DataInputStream in = new DataInputStream(s.getInputStream());
            Frame frame;
            do {
                frame = Frame.read(in);
            } while (frame.type() != 7); // GOAWAY: last stream, error code
            assertEquals(1, ByteBuffer.wrap(frame.payload(), 4, 4).getInt(), "PROTOCOL_ERROR");
            UringHttpTest.assertConnectionEnds(s);
        }
        sockets.assertNoneNew("sockets left open");
    }

    /**
     * The preface of an h2c client with prior knowledge, arriving in two pieces (as a ring's receive can end
     * anywhere in what the client sent at once): still HTTP/2. Pekko HTTP's switch alone took the first piece for
     * HTTP/1.1 and answered 501.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 12, 23})
    void anH2cPrefaceThatArrivesInTwoPiecesIsStillHttp2(int firstPiece) throws Exception {
        try (Socket s = new Socket("127.0.0.1", servers.port(false))) {
            s.setSoTimeout(10_000);
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            out.write(PREFACE, 0, firstPiece);
            Thread.sleep(100); // a gap between the two writes, so that the server receives them apart
            ByteArrayOutputStream rest = new ByteArrayOutputStream();
            rest.write(PREFACE, firstPiece, PREFACE.length - firstPiece);
            rest.write(frame(4, 0, 0, new byte[0])); // SETTINGS
            rest.write(frame(1, 0x5, 1, literalHeaders("GET", "/"))); // HEADERS, END_STREAM | END_HEADERS
            out.write(rest.toByteArray());

            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] first = in.readNBytes(9);
            assertEquals(4, first[3], "a SETTINGS frame first, not HTTP/1.1: "
                    + new String(first, StandardCharsets.US_ASCII));
            in.readNBytes(Frame.length(first));
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            Frame frame;
            do {
                frame = Frame.read(in);
                if (frame.type() == 0 && frame.streamId() == 1) { // DATA of the request's stream
                    data.writeBytes(frame.payload());
                }
            } while (!(frame.type() == 0 && frame.streamId() == 1 && (frame.flags() & 0x1) != 0)); // END_STREAM
            assertEquals(TestRoutes.HELLO, data.toString(StandardCharsets.UTF_8));
        }
    }

    /** An HTTP/2 frame as read off a socket: RFC 9113, 4.1. */
    private record Frame(int type, int flags, int streamId, byte[] payload) {
        static Frame read(DataInputStream in) throws IOException {
            byte[] header = in.readNBytes(9);
            if (header.length < 9) {
                throw new EOFException("the connection ended before a frame");
            }
            return new Frame(header[3], header[4] & 0xff, ByteBuffer.wrap(header, 5, 4).getInt() & 0x7fffffff,
                    in.readNBytes(length(header)));
        }

        /** The payload length in a frame's header. */
        static int length(byte[] header) {
            return (header[0] & 0xff) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
        }
    }

    /** An HTTP/2 frame: RFC 9113, 4.1. */
    private static byte[] frame(int type, int flags, int streamId, byte[] payload) {
        return ByteBuffer.allocate(9 + payload.length)
                .put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length)
                .put((byte) type).put((byte) flags).putInt(streamId).put(payload).array();
    }

    /** A request's header block of literal fields, none indexed or Huffman-coded (RFC 7541, 6.2.2). */
    private static byte[] literalHeaders(String method, String path) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        String[][] fields = {{":method", method}, {":scheme", "http"}, {":path", path}, {":authority", "127.0.0.1"}};
        for (String[] field : fields) {
            block.write(0);
            for (String part : field) {
                byte[] bytes = part.getBytes(StandardCharsets.US_ASCII);
                block.write(bytes.length); // under 127: one byte, its high bit (Huffman) clear
                block.writeBytes(bytes);
            }
        }
        return block.toByteArray();
    }

    /** RFC 7540, 3.2.1: no upgrade without exactly one HTTP2-Settings header that parses. */
    @Test
    void anH2cUpgradeNeedsExactlyOneValidSettingsHeader() throws Exception {
        String valid = "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n"; // three settings, base64url
        for (String settings : List.of("", "HTTP2-Settings: %%%\r\n", valid + valid)) {
            assertTrue(upgrade(settings).startsWith("HTTP/1.1 200 OK"), "answered as HTTP/1.1 with " + settings);
        }
        String head = upgrade(valid);
        assertTrue(head.startsWith("HTTP/1.1 101 Switching Protocols"), head);
        assertTrue(head.toLowerCase(java.util.Locale.ROOT).contains("upgrade: h2c"), head);
    }

    private String upgrade(String settingsHeaders) throws Exception {
        try (Socket s = new Socket("127.0.0.1", servers.port(false))) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    + "Upgrade: h2c\r\n" + settingsHeaders + "\r\n").getBytes(StandardCharsets.US_ASCII));
            return UringHttpTest.readHead(s.getInputStream());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void theHttp2SettingsAndTheIdleTimeoutAreHonoured(Mode mode) throws Exception {
        ServerBinding binding = servers.bind(mode == Mode.TLS, false,
                "idle-timeout = 2s, http2.max-concurrent-streams = 7");
        try (H2Client client = H2Client.connect(mode, binding.localAddress().getPort(),
                servers.certificate.trust())) {
            assertEquals(TestRoutes.HELLO, await(client.get("/")).text());
            assertEquals(7, client.maxConcurrentStreams());
            long start = System.nanoTime();
            client.closed().get(10, TimeUnit.SECONDS);
            long idle = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(idle >= 1000, "closed after " + idle + " ms idle");
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Terminate as with Pekko HTTP's own binding (the same test runs against it): an h2c connection with prior
     * knowledge and an h2 one over TLS get GOAWAY (NO_ERROR) and their stream in flight finishes; an h2c one that
     * came by upgrade has HTTP/1.1's terminator, which sends no GOAWAY but lets the stream finish too. Pekko HTTP
     * closes the prior-knowledge connection then; the others stay until the client (or the idle timeout) ends them.
     */
    @ParameterizedTest
    @MethodSource("bothServersEachWay")
    void terminateSendsGoAwayLetsTheStreamInFlightFinishAndLeavesNoFd(boolean pekkosOwn, Mode mode) throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        ServerBinding binding = servers.bind(mode == Mode.TLS, pekkosOwn);
        try (H2Client client = H2Client.connect(mode, binding.localAddress().getPort(),
                servers.certificate.trust())) {
            CompletableFuture<Response> inFlight = client.get("/slow");
            CompletableFuture<String> answer = slow.poll(10, TimeUnit.SECONDS);
            assertNotNull(answer, "the request reached the route");
            CompletionStage<?> terminated = binding.terminate(Duration.ofSeconds(10));
            boolean goAwayExpected = mode != Mode.UPGRADE;
            if (goAwayExpected) {
                H2Client.GoAway goAway = client.goAway().get(10, TimeUnit.SECONDS);
                assertEquals(0, goAway.errorCode(), "NO_ERROR: a graceful GOAWAY");
                assertEquals(3, goAway.lastStreamId(), "the stream in flight is still answered");
            }
            if (!(pekkosOwn && mode == Mode.UPGRADE)) {
                // Pekko's own binding, on a connection upgraded to h2c, once (in 5 clean-clone CI runs) finished
                // terminating at once with its stream still in flight: a race on Pekko's side, not yet understood.
                assertFalse(terminated.toCompletableFuture().isDone(), "a stream is in flight");
            }
            answer.complete("finished");
            assertEquals("finished", await(inFlight).text());
            terminated.toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(goAwayExpected, client.goAway().isDone() && !client.goAway().isCompletedExceptionally());
            if (mode == Mode.PRIOR_KNOWLEDGE) {
                client.closed().get(10, TimeUnit.SECONDS);
            }
        }
        sockets.assertNoneNew("sockets left open");
    }

    static Stream<Arguments> bothServersEachWay() {
        return Stream.of(false, true).flatMap(pekkosOwn -> Stream.of(Mode.values())
                .map(mode -> Arguments.of(pekkosOwn, mode)));
    }

    private H2Client connect(Mode mode) throws Exception {
        return H2Client.connect(mode, servers.port(mode == Mode.TLS), servers.certificate.trust());
    }

    private static Response await(CompletableFuture<Response> response) throws Exception {
        return response.get(10, TimeUnit.SECONDS);
    }

    static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }
}
