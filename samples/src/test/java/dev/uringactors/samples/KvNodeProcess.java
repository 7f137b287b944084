package dev.uringactors.samples;

import redis.clients.jedis.Jedis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A kv node in a JVM of its own ({@code Main kv}), for tests that SIGKILL it: started and awaited until it
 * listens; its warnings, errors and listening line are echoed with its name.
 */
final class KvNodeProcess implements AutoCloseable {
    /** A JVM start, the cluster's join and the shards' replay, with room for a loaded 2-core machine. */
    static final long START_SECONDS = 90;
    private static final Pattern LISTENING = Pattern.compile("kv listening on 127\\.0\\.0\\.1:(\\d+) .*");

    final int port;
    private final Process process;

    private KvNodeProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** {@code Main kv} with {@code args}; {@code --port 0} takes a free port, which {@link #port} then holds. */
    static KvNodeProcess start(String name, String... args) throws Exception {
        return start(name, List.of(), args);
    }

    /** The same, with {@code settings} ({@code -Dkey=value}) for the node's JVM. */
    static KvNodeProcess start(String name, List<String> settings, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("kv"));
        command.addAll(List.of(args));
        List<String> jvm = new ArrayList<>(List.of("-Xmx256m", "-During.rings=1", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        jvm.addAll(settings);
        Process p = ProcessFailuresTest.java(Main.class.getName(), jvm, command.toArray(new String[0]));
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.matches()) {
                        listening.complete(Integer.parseInt(m.group(1)));
                    }
                    if (line.contains("WARN") || line.contains("ERROR") || m.matches()) {
                        System.out.println(name + ": " + line);
                    }
                }
            } catch (IOException e) {
                // the node was killed
            }
            listening.completeExceptionally(new IllegalStateException(name + " ended before listening"));
        }, "kv-node-" + name);
        reader.setDaemon(true);
        reader.start();
        try {
            return new KvNodeProcess(p, listening.get(START_SECONDS, TimeUnit.SECONDS));
        } catch (Exception e) {
            p.destroyForcibly();
            throw e;
        }
    }

    /** A Jedis client with a timeout that a loaded machine does not reach. */
    Jedis client() {
        return new Jedis("127.0.0.1", port, 30_000);
    }

    /** SIGKILL: the node gets no chance to flush or close anything; returns once it has ended. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the killed node ended");
    }

    /** SIGSTOP ({@code true}) or SIGCONT: the node stops answering anything, its sockets open, or goes on. */
    void pause(boolean paused) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", paused ? "-STOP" : "-CONT", String.valueOf(process.pid())).start()
                .waitFor());
    }

    /**
     * SIGTERM, as a service manager sends it ({@link Process#destroy} would also close our end of its output);
     * returns the exit code once the node has ended, or fails if it has not within 30 s.
     */
    int terminate() throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-TERM", String.valueOf(process.pid())).start().waitFor());
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the node ended after SIGTERM");
        return process.exitValue();
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS); // gone before the next test starts its nodes
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
