package dev.uringactors.samples;

import dev.uringactors.ring.JavaCommand;
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
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A server in its own JVM with a limit of 256 open files, and 1,000 clients at once: past the limit the listener
 * pauses, one log line per pause, and accepts the waiting connections as earlier ones close; out of descriptors
 * again, it still stops at once on SIGTERM. The echo sample on both backends, and on the JDK backend the
 * pekko-http sample and an echo server on UringTcp's streams: Pekko IO's own listener, under the JDK backend,
 * retried a failed accept at once, logging each failure with its stack trace (in the 30 s waited for a pause: the
 * echo sample 3.7 million lines, the pekko-http sample 6.5 million, the streams server 10.5 million). The limit
 * applies only to the child.
 */
class FdExhaustionTest {
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");
    private static final String PAUSE = "no file descriptor left";
    private static final int BACKOFF_MILLIS = 20;
    private static final int CLIENTS = 1000;

    /** Each client sends its number as a byte, and gets it back. */
    private static final Service ECHO = new Service(i -> String.valueOf((char) (i & 0xff)),
            i -> String.valueOf((char) (i & 0xff)));
    /** Each client asks for the pekko-http sample's hello page. */
    private static final Service HTTP = new Service(i -> "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
            i -> "HTTP/1.1 200 OK");

    @Test
    @ExtendWith(RequiresIoUring.class)
    void onTheRingsTheListenerBacksOffAndRecovers() throws Exception {
        outOfDescriptors("io-uring", ECHO, Main.class, "echo");
    }

    @Test
    void onTheJdkBackendTheListenerBacksOffAndRecovers() throws Exception {
        outOfDescriptors("jdk", ECHO, Main.class, "echo");
    }

    @Test
    void onTheJdkBackendPekkoHttpBacksOffAndRecovers() throws Exception {
        outOfDescriptors("jdk", HTTP, Main.class, "pekko-http");
    }

    @Test
    void onTheJdkBackendAStreamsBindBacksOffAndRecovers() throws Exception {
        outOfDescriptors("jdk", ECHO, StreamEchoMain.class);
    }

    /** What client {@code i} sends, and the reply it expects to begin with (ISO-8859-1). */
    private record Service(IntFunction<String> request, IntFunction<String> reply) {
    }

    private void outOfDescriptors(String backend, Service service, Class<?> main, String... sample)
            throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")), "needs prlimit(1) to limit the child's files");
        List<String> command = new ArrayList<>(List.of("/usr/bin/prlimit", "--nofile=256:256", "--"));
        command.addAll(JavaCommand.java());
        command.addAll(List.of("-During.backend=" + backend, "-During.rings=1", "-During.tcp.accept-backoff=" + BACKOFF_MILLIS + "ms",
                "-cp", System.getProperty("java.class.path"), PreloadingMain.class.getName(), main.getName()));
        if (sample.length > 0) {
            command.addAll(List.of(sample));
            command.addAll(List.of("--port", "0"));
        }
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
            clients.addAll(connect(p, CLIENTS, service)); // far more than the child can hold open at once
            assertNotNull(pauses.poll(30, TimeUnit.SECONDS),
                    "the listener met the limit; " + lines.get() + " lines so far, the first ones:\n" + said(output));
            for (int i = 0; i < clients.size(); i++) { // each reply, then close: the server gets its fd back
                String expected = service.reply().apply(i);
                String reply;
                try {
                    reply = new String(clients.get(i).getInputStream().readNBytes(expected.length()),
                            StandardCharsets.ISO_8859_1);
                } catch (java.net.SocketTimeoutException e) {
                    throw new AssertionError("no reply on connection " + i + "; the server said:\n" + said(output), e);
                }
                assertEquals(expected, reply, "reply on connection " + i);
                clients.get(i).close();
            }
            clients.clear();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf("%s on the %s backend, %d clients: all served; the server wrote %d lines in %d ms%n",
                    (main.getSimpleName() + " " + String.join(" ", sample)).trim(), backend, CLIENTS, lines.get(),
                    millis);
            // A pause lasts the back-off at least: one line for each, and the start's few.
            assertTrue(lines.get() <= millis / BACKOFF_MILLIS + 50,
                    lines.get() + " lines in " + millis + " ms, the first ones:\n" + said(output));

            pauses.clear();
            clients.addAll(connect(p, 300, service)); // out of descriptors again
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

    private static List<Socket> connect(int port, int count, Service service) throws Exception {
        List<Socket> clients = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            s.setSoTimeout(30_000);
            s.getOutputStream().write(service.request().apply(i).getBytes(StandardCharsets.ISO_8859_1));
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
