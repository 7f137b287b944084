package dev.uringactors.samples;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The pekko-http sample on the JDK backend, a JVM started with no stack flag: a client pipelines thousands of small
 * requests in one write, and every one is answered. Pekko HTTP's parser recurses once per request in what one read
 * brings; on a thread's usual 1 MiB stack that overflowed, and pekko.jvm-exit-on-fatal-error ended the JVM. No
 * io_uring is needed: the JDK backend runs without it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PekkoHttpJdkPipeliningTest {
    private static final String REQUEST = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    private static final String LAST = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    private static final String STATUS_LINE = "HTTP/1.1 200 OK\r\n";
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(120);

    private Process server;
    private int port;
    /** All the server printed after its first line, for a failure's message. */
    private final StringBuilder output = new StringBuilder();

    @BeforeAll
    void start() throws Exception {
        server = ProcessFailuresTest.java(Main.class.getName(), List.of("-During.rings=1"),
                "pekko-http", "--port", "0", "--backend", "jdk");
        BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8));
        String first = lines.readLine();
        Matcher listening = Pattern.compile("pekko-http listening on 127\\.0\\.0\\.1:(\\d+) \\(transport uring, "
                + "JDK backend: over Pekko IO\\)").matcher(String.valueOf(first));
        assertTrue(listening.matches(), String.valueOf(first));
        port = Integer.parseInt(listening.group(1));
        for (String of : List.of("cmdline", "environ")) { // its arguments, and JAVA_TOOL_OPTIONS and the like
            String text = Files.readString(Path.of("/proc", String.valueOf(server.pid()), of),
                    StandardCharsets.ISO_8859_1);
            assertTrue(!text.contains("-Xss") && !text.contains("ThreadStackSize"),
                    "the server's JVM has no stack flag: " + text.replace('\0', ' '));
        }
        // Drained all along: a server blocked on a full pipe (its log) would answer nothing.
        Thread drain = new Thread(() -> {
            try {
                for (String line; (line = lines.readLine()) != null; ) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                }
            } catch (IOException e) {
                // the server has ended
            }
        }, "server-output");
        drain.setDaemon(true);
        drain.start();
    }

    @AfterAll
    void stop() throws Exception {
        server.destroy();
        assertTrue(server.waitFor(20, TimeUnit.SECONDS));
    }

    /** The last request asks to close, so the stream's end comes after its answer: answers are counted exactly. */
    @ParameterizedTest
    @ValueSource(ints = {10_000, 50_000})
    void pipelinedRequestsInOneWriteAreAllAnswered(int requests) throws Exception {
        byte[] all = (REQUEST.repeat(requests - 1) + LAST).getBytes(StandardCharsets.US_ASCII);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            // From a thread of its own: the answers come while it writes, and must be read for it to go on.
            CompletableFuture<Void> written = CompletableFuture.runAsync(() -> {
                try {
                    s.getOutputStream().write(all);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            int answers = countToEnd(s.getInputStream(), requests);
            assertEquals(requests, answers, "answers; the server " + (server.isAlive() ? "runs" : "exited")
                    + ", its output:\n" + output());
            written.get(20, TimeUnit.SECONDS);
        }
        assertTrue(server.isAlive(), output());
    }

    /**
     * The status lines read until the server closes the connection, or resets it (as a JVM that exits does); fails
     * if it goes quiet for the socket's timeout, or past the deadline.
     */
    private static int countToEnd(InputStream in, int expected) throws IOException {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        byte[] chunk = new byte[65536];
        String tail = "";
        int answers = 0;
        try {
            for (int n; (n = in.read(chunk)) >= 0; ) {
                if (System.nanoTime() > deadline) {
                    fail("still reading after " + TimeUnit.NANOSECONDS.toSeconds(DEADLINE_NANOS) + " s: "
                            + answers + " of " + expected + " answers");
                }
                String seen = tail + new String(chunk, 0, n, StandardCharsets.ISO_8859_1);
                int end = 0;
                for (int at = seen.indexOf(STATUS_LINE); at >= 0; at = seen.indexOf(STATUS_LINE, end)) {
                    answers++;
                    end = at + STATUS_LINE.length();
                }
                // Kept for the next read: what may be the start of a status line, and no part of a counted one.
                tail = seen.substring(Math.max(end, seen.length() - STATUS_LINE.length() + 1));
            }
        } catch (SocketException reset) {
            assertTrue(String.valueOf(reset.getMessage()).contains("reset"), reset.toString());
        }
        return answers;
    }

    private String output() {
        synchronized (output) {
            return output.toString();
        }
    }
}
