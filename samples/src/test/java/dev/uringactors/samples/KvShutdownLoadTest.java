package dev.uringactors.samples;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM to a kv node with --aof while redis-benchmark and a writer of its own load it: the node ends with 143
 * (as when idle) within {@code uring.shutdown-timeout}, and every SET it acknowledged is there when a node starts
 * on its files.
 */
@ExtendWith(RequiresIoUring.class)
class KvShutdownLoadTest {
    private static final int BATCH = 100;
    /** Acknowledged SETs before the signal: the writer is well under way. */
    private static final int ACKED_BEFORE_SIGNAL = 20_000;

    @TempDir
    Path dir;

    @Test
    void sigtermUnderLoadExits143WithinTheShutdownTimeoutAndKeepsEveryAcknowledgedWrite() throws Exception {
        Path benchmark = RealRedis.onPath("redis-benchmark").orElse(null);
        Assumptions.assumeTrue(benchmark != null, "redis-benchmark is not on the PATH (install redis-tools)");
        long timeoutMillis = UringSettings.from(ConfigFactory.load()).shutdownTimeout().toMillis();
        List<Integer> acknowledged = new ArrayList<>();
        try (KvNodeProcess node = KvNodeProcess.start("stopped", "--port", "0", "--aof", dir.toString())) {
            Process load = new ProcessBuilder(benchmark.toString(), "-h", "127.0.0.1", "-p", String.valueOf(node.port),
                    "-c", "50", "-n", "10000000", "-t", "set,get", "-P", "16", "-r", "100000", "-q")
                    .redirectErrorStream(true).start();
            try {
                CompletableFuture<Void> loading = progress(load.getInputStream());
                CompletableFuture<Void> underWay = new CompletableFuture<>();
                CompletableFuture<Void> written = CompletableFuture.runAsync(() -> write(node.port, acknowledged,
                        underWay));
                loading.get(60, TimeUnit.SECONDS);
                underWay.get(60, TimeUnit.SECONDS);
                long start = System.nanoTime();
                int status = node.terminate();
                long millis = (System.nanoTime() - start) / 1_000_000;
                written.get(30, TimeUnit.SECONDS); // the node is gone: its connection has ended
                System.out.printf("kv under redis-benchmark: SIGTERM to exit %d took %d ms; the writer had %d SETs "
                        + "acknowledged%n", status, millis, acknowledged.size());
                assertEquals(143, status, "exit code after " + millis + " ms");
                assertTrue(millis < timeoutMillis, "ended in " + millis + " ms, not within " + timeoutMillis);
            } finally {
                load.destroyForcibly();
            }
        }
        try (KvNodeProcess restarted = KvNodeProcess.start("restarted", "--port", "0", "--aof", dir.toString());
             Jedis jedis = restarted.client()) {
            Pipeline p = jedis.pipelined();
            List<Response<String>> values = new ArrayList<>();
            for (int i : acknowledged) {
                values.add(p.get("acked:" + i));
            }
            p.sync();
            for (int n = 0; n < values.size(); n++) {
                int i = acknowledged.get(n);
                assertEquals("v" + i, values.get(n).get(), "acked:" + i + ", acknowledged before the SIGTERM");
            }
        }
    }

    /** Completes once redis-benchmark reports its first rate: its clients are connected and sending. */
    private static CompletableFuture<Void> progress(InputStream output) {
        CompletableFuture<Void> running = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            try {
                for (int b; (b = output.read()) != -1; ) {
                    seen.write(b);
                    if (!running.isDone() && seen.toString(StandardCharsets.ISO_8859_1).contains("rps=")) {
                        running.complete(null);
                    }
                }
            } catch (IOException e) {
                // destroyed
            }
            running.completeExceptionally(new IllegalStateException("redis-benchmark ended: " + seen));
        }, "redis-benchmark-output");
        reader.setDaemon(true);
        reader.start();
        return running;
    }

    /**
     * SETs acked:i to vi, pipelined {@link #BATCH} at a time, until the node closes the connection; each that got
     * +OK goes into {@code acknowledged}. {@code underWay} completes after {@link #ACKED_BEFORE_SIGNAL} of them.
     */
    private static void write(int port, List<Integer> acknowledged, CompletableFuture<Void> underWay) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream());
            for (int next = 0; ; next += BATCH) {
                StringBuilder batch = new StringBuilder();
                for (int i = next; i < next + BATCH; i++) {
                    batch.append(Resp.multibulk("SET", "acked:" + i, "v" + i));
                }
                out.write(Resp.bytes(batch.toString()));
                for (int i = next; i < next + BATCH; i++) {
                    String reply = line(in);
                    if (reply == null) {
                        return; // the node closed the connection
                    }
                    if (reply.equals("+OK")) {
                        acknowledged.add(i);
                    }
                }
                if (acknowledged.size() >= ACKED_BEFORE_SIGNAL) {
                    underWay.complete(null);
                }
            }
        } catch (IOException e) {
            // reset by the stopping node: what was acknowledged before is counted
        } finally {
            underWay.completeExceptionally(new IllegalStateException(acknowledged.size() + " acknowledged"));
        }
    }

    /** A reply line without its CRLF, or null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) != -1; ) {
            if (b == '\n') {
                return line.substring(0, line.length() - 1);
            }
            line.append((char) b);
        }
        return null;
    }
}
