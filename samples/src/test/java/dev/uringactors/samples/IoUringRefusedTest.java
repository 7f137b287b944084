package dev.uringactors.samples;

import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The samples in a child JVM where the kernel refuses io_uring (a seccomp filter answers io_uring_setup with EPERM
 * on all its threads; nothing else on the machine is touched): under {@code uring.backend = auto} each starts on
 * the JDK backend, says why in one warning, serves, survives hostile clients and gives back its sockets; under
 * {@code io-uring} each fails at once with the reason.
 */
@ExtendWith(RequiresIoUring.class) // so that what is refused is the filter's doing, not this kernel's
class IoUringRefusedTest {
    private static final String WARNING = "uring.backend = auto: io_uring_setup: EPERM";
    private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
    private static final byte[] GET = "GET / HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"echo", "http", "pekko-http"})
    void underAutoASampleServesOnTheJdkBackendAndSaysWhyOnce(String sample) throws Exception {
        Process p = ProcessFailuresTest.java(IoUringRefusedMain.class.getName(), List.of("-During.rings=2"),
                sample, "--port", "0");
        Output out = new Output(p);
        try {
            int port = out.awaitPort();
            InetSocketAddress server = new InetSocketAddress("127.0.0.1", port);
            OpenFds.Snapshot listening = OpenFds.snapshotOf(p, OpenFds.Kind.SOCKETS);
            if (sample.equals("echo")) {
                echoHostileClients(server);
            } else {
                httpHostileClients(server);
            }
            listening.assertNoneNew("the child's sockets after the clients");
            assertEquals(1, out.count(WARNING), "one warning naming the reason:\n" + out);
            assertTrue(out.lines().stream().anyMatch(l -> l.contains(WARNING) && l.contains("WARN")
                    && l.contains("JDK backend")), out.toString());
        } finally {
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "ended after SIGTERM");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"echo", "http", "pekko-http"})
    void underIoUringASampleFailsAtOnceWithTheReason(String sample) throws Exception {
        Process p = ProcessFailuresTest.java(IoUringRefusedMain.class.getName(), List.of("-Dx=1"),
                sample, "--port", "0", "--backend", "io-uring");
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String first = in.readLine();
        // Timed from the sample's start, not the JVM's launch, which a loaded machine can make take seconds.
        long start = System.nanoTime();
        StringBuilder out = new StringBuilder(first + "\n");
        for (String line; (line = in.readLine()) != null; ) {
            out.append(line).append('\n');
        }
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), out.toString());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assumeTrue(p.exitValue() != IoUringRefusedMain.NO_FILTER, out::toString);
        assertEquals(IoUringRefusedMain.FILTER_IN, first, out.toString());
        assertEquals(1, p.exitValue(), out.toString());
        assertTrue(out.toString().contains("error: io_uring_setup: EPERM") && out.toString().contains("seccomp"),
                out.toString());
        assertTrue(millis < 2_000, "failed " + millis + " ms after the sample started");
    }

    @Test
    void probeSaysAutoWouldRunTheJdkBackendAndWhy() throws Exception {
        Process p = ProcessFailuresTest.java(IoUringRefusedMain.class.getName(), List.of("-Dx=1"), "probe");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), out);
        assumeTrue(p.exitValue() != IoUringRefusedMain.NO_FILTER, out);
        assertEquals(1, p.exitValue(), "io_uring is not available: " + out);
        assertTrue(out.contains("uring.backend = auto would run: jdk (" + WARNING), out);
    }

    /** Resets, a half-closing client, and 300 clients echoing a mebibyte each at once. */
    private static void echoHostileClients(InetSocketAddress server) throws Exception {
        resets(server, new byte[] {1, 2, 3});
        byte[] payload = random(300_000, 1);
        try (Socket s = connect(server)) {
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> writeAndShutdown(s, payload));
            byte[] back = s.getInputStream().readAllBytes(); // up to the server's end of stream
            writer.get(30, TimeUnit.SECONDS);
            assertTrue(Arrays.equals(payload, back), "half-close: " + back.length + " bytes back");
        }
        int clients = 300;
        ExecutorService threads = Executors.newFixedThreadPool(2 * clients);
        try {
            List<CompletableFuture<Boolean>> echoes = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                byte[] mebibyte = random(1 << 20, i);
                echoes.add(CompletableFuture.supplyAsync(() -> {
                    try (Socket s = connect(server)) {
                        CompletableFuture<Void> writer = CompletableFuture.runAsync(
                                () -> writeAndShutdown(s, mebibyte), threads);
                        byte[] back = s.getInputStream().readAllBytes();
                        writer.get(60, TimeUnit.SECONDS);
                        return Arrays.equals(mebibyte, back);
                    } catch (Exception e) {
                        return false;
                    }
                }, threads));
            }
            long intact = 0;
            for (CompletableFuture<Boolean> e : echoes) {
                intact += e.get(120, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertEquals(clients, intact, "clients that got their mebibyte back intact");
        } finally {
            threads.shutdownNow();
        }
    }

    /** Resets (some with a request on its way), a 10 MB body refused with 413, and the server still serving. */
    private static void httpHostileClients(InetSocketAddress server) throws Exception {
        assertEquals("HTTP/1.1 200 OK", statusOf(server, GET));
        resets(server, GET);
        String status = statusOf(server, ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                + "Content-Length: 10000000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        assertTrue(status.startsWith("HTTP/1.1 413 "), status);
        assertEquals("HTTP/1.1 200 OK", statusOf(server, GET));
    }

    private static void resets(InetSocketAddress server, byte[] request) throws IOException {
        for (int i = 0; i < 200; i++) {
            try (Socket s = connect(server)) {
                s.setSoLinger(true, 0); // close sends RST
                if (i % 2 == 1) {
                    s.getOutputStream().write(request);
                }
            }
        }
    }

    /** The status line of the answer to {@code request} on a fresh connection. */
    private static String statusOf(InetSocketAddress server, byte[] request) throws IOException {
        try (Socket s = connect(server)) {
            s.getOutputStream().write(request);
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c; (c = in.read()) != -1 && c != '\r'; ) {
                line.append((char) c);
            }
            return line.toString();
        }
    }

    private static Socket connect(InetSocketAddress server) throws IOException {
        Socket s = new Socket(server.getAddress(), server.getPort());
        s.setSoTimeout(30_000);
        return s;
    }

    private static void writeAndShutdown(Socket s, byte[] data) {
        try {
            s.getOutputStream().write(data);
            s.shutdownOutput();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** The child's output and errors, read as they come. */
    private static final class Output {
        private final List<String> lines = new ArrayList<>();
        /** The port it listens on, or -1 where it could have no seccomp filter. */
        private final CompletableFuture<Integer> port = new CompletableFuture<>();

        Output(Process p) {
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        add(line);
                    }
                } catch (IOException e) {
                    // the child ended
                }
                port.completeExceptionally(new IllegalStateException("the sample ended before it listened:\n"
                        + this));
            });
            reader.setDaemon(true);
            reader.start();
        }

        private synchronized void add(String line) {
            lines.add(line);
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                port.complete(Integer.parseInt(m.group(1)));
            }
            if (line.startsWith("no seccomp filter")) {
                port.complete(-1);
            }
        }

        int awaitPort() throws Exception {
            int listening = port.get(30, TimeUnit.SECONDS);
            assumeTrue(listening >= 0, this::toString);
            return listening;
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }

        synchronized long count(String text) {
            return lines.stream().filter(l -> l.contains(text)).count();
        }

        @Override
        public synchronized String toString() {
            return String.join("\n", lines);
        }
    }
}
