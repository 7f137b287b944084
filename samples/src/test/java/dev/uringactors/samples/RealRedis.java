package dev.uringactors.samples;

import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real redis-server 7.0 (Debian's redis-server package, which .ci/run installs) on a free loopback port, no
 * snapshots, no append-only file: what the kv sample's answers are compared with. Started and stopped by its
 * pid; a test without redis-server on the PATH is skipped (a failure under the CI switch).
 */
final class RealRedis implements AutoCloseable {
    private static final long START_SECONDS = 30;

    final int port;
    private final Process process;

    private RealRedis(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** redis-server with {@code options} (such as {@code --proto-max-bulk-len 1mb}) after the test's own. */
    static RealRedis start(String... options) throws Exception {
        Path server = onPath("redis-server").orElse(null);
        Assumptions.assumeTrue(server != null,
                "redis-server is not on the PATH (install the redis-server package to run this test)");
        Process v = new ProcessBuilder(server.toString(), "--version").redirectErrorStream(true).start();
        String version = new String(v.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(v.waitFor(START_SECONDS, TimeUnit.SECONDS), "redis-server --version ended");
        Assumptions.assumeTrue(version.contains(" v=7.0."),
                "the comparisons are with redis-server 7.0, this is: " + version.trim());
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> command = new java.util.ArrayList<>(List.of(server.toString(), "--port", String.valueOf(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", System.getProperty("java.io.tmpdir")));
        command.addAll(List.of(options));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        StringBuilder log = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    synchronized (log) {
                        log.append(line).append('\n');
                    }
                    if (line.contains("Ready to accept connections")) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                // stopped
            }
            ready.completeExceptionally(new IllegalStateException("redis-server ended before it was ready"));
        }, "redis-server-" + port);
        reader.setDaemon(true);
        reader.start();
        try {
            ready.get(START_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            synchronized (log) {
                throw new AssertionError("redis-server did not start on port " + port + ":\n" + log, e);
            }
        }
        return new RealRedis(p, port);
    }

    static Optional<Path> onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(dir -> Path.of(dir, program)).filter(Files::isExecutable).findFirst();
    }

    /** SIGTERM to its pid, SIGKILL if it has not ended within 10 s. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
