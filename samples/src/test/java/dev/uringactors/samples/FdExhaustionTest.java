package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The echo server in its own JVM with a limit of 256 open files, and 1,000 clients at once: past the limit the
 * listener pauses, one log line per pause, and accepts the waiting connections as earlier ones close; out of
 * descriptors again, it still stops at once on SIGTERM. On both backends: Pekko IO's own listener, under the JDK
 * one, retried a failed accept at once, logging each failure with its stack trace (737,741 lines in 20 s). The
 * limit applies only to the child.
 */
class FdExhaustionTest {
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");
    private static final String PAUSE = "no file descriptor left";
    private static final int BACKOFF_MILLIS = 20;
    private static final int CLIENTS = 1000;

    @Test
    @ExtendWith(RequiresIoUring.class)
    void onTheRingsTheListenerBacksOffAndRecovers() throws Exception {
        outOfDescriptors("io-uring");
    }

    @Test
    void onTheJdkBackendTheListenerBacksOffAndRecovers() throws Exception {
        outOfDescriptors("jdk");
    }

    private void outOfDescriptors(String backend) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")), "needs prlimit(1) to limit the child's files");
        List<String> command = List.of("/usr/bin/prlimit", "--nofile=256:256", "--",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-During.backend=" + backend, "-During.rings=1", "-During.tcp.accept-backoff=" + BACKOFF_MILLIS + "ms",
                "-cp", System.getProperty("java.class.path"), PreloadingMain.class.getName(), "echo", "--port", "0");
        long start = System.nanoTime();
        Process server = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> output = new ArrayList<>(); // the first lines: a hot loop would write millions
        AtomicLong lines = new AtomicLong();
        LinkedBlockingQueue<String> pauses = new LinkedBlockingQueue<>();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (lines.incrementAndGet() <= 200) {
                        synchronized (output) {
                            output.add(line);
                        }
                    }
                    if (line.contains(PAUSE)) {
                        pauses.add(line);
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (Exception e) {
                port.completeExceptionally(e);
            }
        });
        reader.start();
        List<Socket> clients = new ArrayList<>();
        try {
            int p = port.get(60, TimeUnit.SECONDS);
            clients.addAll(connect(p, CLIENTS)); // far more than the child can hold open at once
            assertNotNull(pauses.poll(30, TimeUnit.SECONDS),
                    "the listener met the limit; " + lines.get() + " lines so far, the first ones:\n" + said(output));
            for (int i = 0; i < clients.size(); i++) { // each echo, then close: the server gets its fd back
                int echo;
                try {
                    echo = clients.get(i).getInputStream().read();
                } catch (java.net.SocketTimeoutException e) {
                    throw new AssertionError("no echo on connection " + i + "; the server said:\n" + said(output), e);
                }
                assertEquals(i & 0xff, echo, "echo on connection " + i);
                clients.get(i).close();
            }
            clients.clear();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf("%s backend, %d clients: all served; the server wrote %d lines in %d ms%n", backend,
                    CLIENTS, lines.get(), millis);
            // A pause lasts the back-off at least: one line for each, and the start's few.
            assertTrue(lines.get() <= millis / BACKOFF_MILLIS + 50,
                    lines.get() + " lines in " + millis + " ms, the first ones:\n" + said(output));

            pauses.clear();
            clients.addAll(connect(p, 300)); // out of descriptors again
            assertNotNull(pauses.poll(30, TimeUnit.SECONDS), "the listener met the limit again: " + said(output));
            server.destroy();
            assertTrue(server.waitFor(10, TimeUnit.SECONDS), "stopped on SIGTERM, out of descriptors");
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            server.destroy();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static List<Socket> connect(int port, int count) throws Exception {
        List<Socket> clients = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            s.setSoTimeout(30_000);
            s.getOutputStream().write(i);
            clients.add(s);
        }
        return clients;
    }

    private static String said(List<String> output) {
        synchronized (output) {
            return String.join("\n", output.subList(0, Math.min(60, output.size())));
        }
    }
}
