package dev.uringactors.samples;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample servers against clients that reset, half-close, and send a lot at once: every byte comes back,
 * and no fd stays behind.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class HostileClientsTest {
    private static final byte[] GET = "GET / HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    RunningServer echo;
    RunningServer http;

    @BeforeAll
    void start() throws Exception {
        echo = RunningServer.start(EchoServer::create);
        http = RunningServer.start(HttpServer::create);
    }

    @AfterAll
    void stop() {
        echo.close();
        http.close();
    }

    private static Socket connect(InetSocketAddress server) throws IOException {
        Socket s = new Socket(server.getAddress(), server.getPort());
        s.setSoTimeout(30_000);
        return s;
    }

    /** A request and its whole answer on a fresh connection: the server still serves. */
    private void assertHttpServes() throws IOException {
        try (Socket s = connect(http.address)) {
            s.getOutputStream().write(GET);
            String head = new String(s.getInputStream().readNBytes(15), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 200 OK", head);
        }
    }

    @Test
    void aThousandClientsThatResetLeaveNoFdBehind() throws Exception {
        assertHttpServes();
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        for (int i = 0; i < 1000; i++) {
            try (Socket s = connect(http.address)) {
                s.setSoLinger(true, 0); // close sends RST
                if (i % 2 == 1) {
                    s.getOutputStream().write(GET); // reset with a response on its way
                }
            }
        }
        // The kernel hands out connections in order: once a later one is served, every reset one was accepted.
        for (int i = 0; i < 10; i++) {
            assertHttpServes();
        }
        sockets.assertNoneNew("sockets after 1,000 resets");
    }

    @ParameterizedTest(name = "half-close: {0}")
    @ValueSource(booleans = {true, false})
    void threeHundredConcurrentClientsGetEveryMebibyteBack(boolean halfClose) throws Exception {
        int clients = 300;
        int size = 1 << 20;
        ExecutorService threads = Executors.newFixedThreadPool(2 * clients);
        try {
            List<CompletableFuture<String>> results = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                long seed = i;
                results.add(CompletableFuture.supplyAsync(() -> echoOnce(seed, size, halfClose, threads), threads));
            }
            List<String> failures = new ArrayList<>();
            for (CompletableFuture<String> r : results) {
                String failure = r.get(120, TimeUnit.SECONDS);
                if (failure != null) {
                    failures.add(failure);
                }
            }
            assertTrue(failures.isEmpty(), failures.size() + " of " + clients + " clients did not get all their "
                    + "bytes back, e.g. " + failures.subList(0, Math.min(5, failures.size())));
        } finally {
            threads.shutdownNow();
        }
    }

    /** Sends {@code size} seeded random bytes and reads them back; null when all came back intact, else why not. */
    private String echoOnce(long seed, int size, boolean halfClose, ExecutorService threads) {
        byte[] payload = new byte[size];
        new Random(seed).nextBytes(payload);
        CRC32 sent = new CRC32();
        sent.update(payload);
        try (Socket s = connect(echo.address)) {
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    s.getOutputStream().write(payload);
                    if (halfClose) {
                        s.shutdownOutput();
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, threads);
            InputStream in = s.getInputStream();
            byte[] back = in.readNBytes(size);
            writer.get(60, TimeUnit.SECONDS);
            CRC32 received = new CRC32();
            received.update(back);
            if (back.length != size || received.getValue() != sent.getValue()) {
                return "client " + seed + ": " + back.length + " bytes back, checksum "
                        + (received.getValue() == sent.getValue() ? "equal" : "different");
            }
            if (halfClose && in.read() != -1) {
                return "client " + seed + ": no end of stream after the echo";
            }
            return null;
        } catch (Exception e) {
            return "client " + seed + ": " + e;
        }
    }

    @Test
    void aHalfClosingClientGetsAllItsBytesBackTwentyTimesInARow() throws Exception {
        byte[] payload = new byte[300_000];
        new Random(3).nextBytes(payload);
        for (int run = 0; run < 20; run++) {
            try (Socket s = connect(echo.address)) {
                CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                    try {
                        s.getOutputStream().write(payload);
                        s.shutdownOutput();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                InputStream in = s.getInputStream();
                byte[] back = in.readAllBytes(); // up to the server's end of stream
                writer.get(30, TimeUnit.SECONDS);
                assertEquals(payload.length, back.length, "run " + run);
                assertTrue(java.util.Arrays.equals(payload, back), "run " + run + ": the same bytes");
            }
        }
    }

    @Test
    void shuttingDownWithAThousandOpenConnectionsClosesEveryOne() throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        RunningServer server = RunningServer.start(EchoServer::create);
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 1000; i++) {
                Socket s = connect(server.address);
                clients.add(s);
                s.getOutputStream().write(i);
                assertEquals(i & 0xff, s.getInputStream().read()); // accepted and registered
            }
            server.close();
            for (Socket s : clients) {
                assertTrue(sawEndOrReset(s), "the server's side of " + s + " was closed");
            }
        } finally {
            for (Socket s : clients) {
                s.close();
            }
        }
        sockets.assertNoneNew("sockets after the server's shutdown");
    }

    /** Whether the peer closed: end of stream or a reset; a read that times out is neither. */
    private static boolean sawEndOrReset(Socket s) throws IOException {
        try {
            return s.getInputStream().read() == -1;
        } catch (SocketException reset) {
            return true;
        }
    }
}
