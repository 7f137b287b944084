package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * The pekko-http sample on the rings against the same sample on Pekko's own TCP, under many large POSTs at once:
 * {@code --requests} (300) JSON documents of {@code --kib} (1024) KiB each, POSTed together to {@code /echo}
 * (parsed and written back by Jackson). Each answer is checked whole (its length and CRC against the document's);
 * per transport it prints the wall time, the server's peak RSS (VmHWM), its RSS afterwards, and its most threads.
 * With {@code --in-flight N} at most N of them are in flight at a time, so that both servers serve the same
 * number at once (without it, each serves as many at once as it accepts). Before the measure, {@code --warmup}
 * (4) documents are posted the same way: 4 load the classes, but leave the JIT compiling through the measure (it
 * took 3-4.5 s of each server's CPU there); as many as {@code --requests} let it finish first. The peak RSS is
 * the measure's (the warm-up's is cleared). The servers run one after the other, each in a JVM of its own,
 * unpinned.
 */
final class PekkoHttpPostBench {
    /** Documents posted before the measure unless {@code --warmup} says otherwise: enough to load the classes. */
    private static final int WARMUP = 4;

    private PekkoHttpPostBench() {
    }

    static void main(Args args) throws Exception {
        int requests = args.intValue("requests", 300);
        int length = args.intValue("kib", 1024) * 1024;
        int inFlight = args.intValue("in-flight", requests);
        int warmup = args.intValue("warmup", WARMUP);
        if (requests < 1 || length < 1024 || inFlight < 1 || warmup < 1) {
            throw new IllegalArgumentException("--requests, --kib, --in-flight and --warmup take 1 or more");
        }
        String sampleJar = args.sampleJar();
        String workload = inFlight < requests ? "pekko-http-post-in-flight-" + inFlight : "pekko-http-post";
        FigureRecorder recorder = args.figures(warmup == WARMUP ? workload : workload + "-warmup-" + warmup);
        for (String transport : List.of("uring", "pekko")) {
            List<Process> started = new ArrayList<>();
            try {
                Process sample = HttpLoad.start(List.of("java", "-jar", sampleJar, "pekko-http", "--port", "0",
                        "--transport", transport));
                started.add(sample);
                URI echo = URI.create("http://127.0.0.1:" + HttpLoad.listeningPort(sample) + "/echo");
                post(echo, warmup, length, Math.min(inFlight, warmup));
                ProcessWatch watch = new ProcessWatch(sample.pid());
                long start = System.nanoTime();
                post(echo, requests, length, inFlight);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                watch.stop();
                System.out.printf(Locale.ROOT, "%s: %d %d KiB JSON POSTs, %d at a time, after %d, in %d ms; server"
                                + " peak RSS %d MiB, RSS after %d MiB, at most %d threads%n", transport, requests,
                        length / 1024, inFlight, warmup, millis, watch.status("VmHWM") / 1024,
                        watch.status("VmRSS") / 1024, watch.mostThreads());
                String series = transport.equals("uring") ? "uring-actors" : "pekko-tcp";
                recorder.record(series, "requests", requests, "wall ms", millis);
                recorder.record(series, "requests", requests, "peak RSS MiB", watch.status("VmHWM") / 1024.0);
            } finally {
                HttpLoad.stopAll(started);
            }
        }
    }

    /**
     * POSTs {@code count} documents, {@code inFlight} at a time, and checks every answer; fails on the first that
     * is not intact.
     */
    private static void post(URI echo, int count, int length, int inFlight) throws Exception {
        Semaphore permits = new Semaphore(inFlight);
        ExecutorService clientThreads = Executors.newFixedThreadPool(4);
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .executor(clientThreads).build();
            List<CompletableFuture<Void>> answers = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Document document = new Document(i, length);
                CRC32 received = new CRC32();
                long[] receivedBytes = new long[1];
                permits.acquire();
                answers.add(client.sendAsync(HttpRequest.newBuilder(echo).timeout(Duration.ofMinutes(5))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.fromPublisher(
                                        HttpRequest.BodyPublishers.ofInputStream(document::stream), length))
                                .build(), HttpResponse.BodyHandlers.ofByteArrayConsumer((Optional<byte[]> chunk) ->
                                chunk.ifPresent(bytes -> {
                                    received.update(bytes);
                                    receivedBytes[0] += bytes.length;
                                })))
                        .whenComplete((response, failure) -> permits.release())
                        .thenAccept(response -> {
                            if (response.statusCode() != 200 || receivedBytes[0] != length
                                    || received.getValue() != document.crc()) {
                                throw new IllegalStateException("document " + document.id + ": status "
                                        + response.statusCode() + ", " + receivedBytes[0] + " bytes back");
                            }
                        }));
            }
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
        } finally {
            clientThreads.shutdownNow();
        }
    }

    /** A compact JSON document {@code {"id":N,"pad":"..."}} of exactly {@code length} bytes, made as it is read. */
    private record Document(int id, int length) {
        private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

        /** Its bytes from {@code from} on, into {@code into}; how many (fewer at its end, -1 past it). */
        int fill(byte[] head, int from, byte[] into, int offset, int count) {
            if (from >= length) {
                return -1;
            }
            int n = Math.min(count, length - from);
            for (int i = 0; i < n; i++) {
                int position = from + i;
                into[offset + i] = position < head.length ? head[position]
                        : position == length - 2 ? (byte) '"'
                        : position == length - 1 ? (byte) '}'
                        : DIGITS[(position * 31 + id * 7 + (position >>> 10)) & 15];
            }
            return n;
        }

        private byte[] head() {
            return ("{\"id\":" + id + ",\"pad\":\"").getBytes(StandardCharsets.US_ASCII);
        }

        InputStream stream() {
            byte[] head = head();
            return new InputStream() {
                private int position;

                @Override
                public int read() {
                    byte[] one = new byte[1];
                    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
                }

                @Override
                public int read(byte[] into, int offset, int count) {
                    int n = fill(head, position, into, offset, count);
                    position += Math.max(n, 0);
                    return n;
                }
            };
        }

        long crc() {
            byte[] head = head();
            CRC32 crc = new CRC32();
            byte[] buffer = new byte[64 * 1024];
            int n;
            for (int position = 0; (n = fill(head, position, buffer, 0, buffer.length)) > 0; position += n) {
                crc.update(buffer, 0, n);
            }
            return crc.getValue();
        }
    }

    /**
     * A process's /proc status, its peak RSS counted from the start of the watch (writing 5 to its
     * {@code clear_refs} resets VmHWM), and the most threads it had while watched (sampled every 50 ms).
     */
    private static final class ProcessWatch {
        private final Path status;
        private final Thread sampler;
        private volatile long mostThreads;

        ProcessWatch(long pid) {
            this.status = Path.of("/proc", Long.toString(pid), "status");
            try {
                Files.writeString(Path.of("/proc", Long.toString(pid), "clear_refs"), "5");
            } catch (IOException e) {
                System.out.println("(the peak RSS includes the warm-up's: " + e + ")");
            }
            this.sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    mostThreads = Math.max(mostThreads, status("Threads"));
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "process-watch");
            sampler.setDaemon(true);
            sampler.start();
        }

        void stop() throws InterruptedException {
            sampler.interrupt();
            sampler.join();
        }

        long mostThreads() {
            return Math.max(mostThreads, status("Threads"));
        }

        /** A number from the status file: kB for memory lines, a count for Threads. */
        long status(String field) {
            try {
                for (String line : Files.readAllLines(status)) {
                    if (line.startsWith(field + ":")) {
                        return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + status, e);
            }
            throw new IllegalStateException(field + " is not in " + status);
        }
    }
}
