package dev.uringactors.samples;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server JVM pinned to one CPU, as a JVM in a small container sees its machine (the JDK's common pool then has
 * one thread, and its default async executor starts a thread per task), loaded with requests a fixed number of
 * times, and the threads it started meanwhile counted (the JVM's own counter, read with the JDK's jcmd).
 */
public final class OneCpuLoad {
    /** Threads a server may start while it answers the load: its dispatchers' threads, started as work comes. */
    public static final int THREADS_STARTED_BOUND = 32;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private OneCpuLoad() {
    }

    /** {@code command} run on CPU 1 alone. */
    public static List<String> pinned(List<String> command) {
        List<String> pinned = new ArrayList<>(List.of("taskset", "-c", "1"));
        pinned.addAll(command);
        return pinned;
    }

    /** The threads JVM {@code pid} has started since it began. */
    public static long threadsStarted(long pid) throws Exception {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(pid), "PerfCounter.print").redirectErrorStream(true).start();
        String found = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(jcmd.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("java.threads.started=")) {
                    found = line.substring(line.indexOf('=') + 1).trim();
                }
            }
        }
        assertTrue(jcmd.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "jcmd took too long");
        assertTrue(found != null, "jcmd gave no java.threads.started for " + pid);
        return Long.parseLong(found);
    }

    /**
     * {@code requests} GETs of {@code uri}, {@code inFlight} at a time over HTTP/1.1, each answered 200 with
     * {@code body}; fails naming the first wrong answers.
     */
    public static void get(HttpClient client, URI uri, int requests, int inFlight, String body) throws Exception {
        Semaphore room = new Semaphore(inFlight);
        AtomicInteger right = new AtomicInteger();
        Queue<String> wrong = new ConcurrentLinkedQueue<>();
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(DEADLINE).build();
        for (int i = 0; i < requests; i++) {
            assertTrue(room.tryAcquire(DEADLINE.toSeconds(), TimeUnit.SECONDS), "no answer within " + DEADLINE);
            client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, failure) -> {
                if (failure == null && response.statusCode() == 200 && response.body().equals(body)) {
                    right.incrementAndGet();
                } else if (wrong.size() < 5) {
                    wrong.add(failure != null ? failure.toString() : response.statusCode() + " " + response.body());
                }
                room.release();
            });
        }
        assertTrue(room.tryAcquire(inFlight, DEADLINE.toSeconds(), TimeUnit.SECONDS), "the last answers came");
        assertEquals(List.of(), List.copyOf(wrong));
        assertEquals(requests, right.get());
    }

    /**
     * Warms {@code server} up with a thousand requests, then sends {@code requests} more and checks that it started
     * at most {@link #THREADS_STARTED_BOUND} threads meanwhile.
     */
    public static void startsNoThreadPerRequest(Process server, URI uri, int requests, String body) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        get(client, uri, 1_000, 16, body);
        long before = threadsStarted(server.pid());
        get(client, uri, requests, 16, body);
        long started = threadsStarted(server.pid()) - before;
        assertTrue(started <= THREADS_STARTED_BOUND,
                started + " threads started for " + requests + " requests, over " + THREADS_STARTED_BOUND);
    }
}
