package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kv sample's reply budget ({@code samples.kv.reply-budget}) against clients that ask for far more than it
 * and do not read: what the server holds for them stays within the budget per client, other clients are served
 * meanwhile, and it all comes back once they leave. In the load-test JVM, whose heap is 512 MiB: without the
 * budget, ten such clients would need some 10 GB, and the heap runs out.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KvReplyBudgetLoadTest {
    private static final int BUDGET = 4 << 20;
    private static final int VALUE = 100 * 1024;
    private static final int KEYS = 100;
    /** Beside what the clients are owed: replies of other connections, a GC's leftovers, kernel-side buffers. */
    private static final long SLACK = 48L << 20;

    private RunningKv kv;
    private final byte[][] values = new byte[KEYS][];

    @BeforeAll
    void start() throws Exception {
        kv = RunningKv.start("samples.kv.reply-budget = " + BUDGET);
        try (Jedis jedis = kv.client()) {
            for (int i = 0; i < KEYS; i++) {
                values[i] = new byte[VALUE];
                Arrays.fill(values[i], (byte) ('a' + i % 26));
                jedis.set(key(i).getBytes(StandardCharsets.US_ASCII), values[i]);
            }
        }
    }

    @AfterAll
    void stop() {
        if (kv != null) {
            kv.close();
        }
    }

    private static String key(int i) {
        return "big:" + i;
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(kv.address.getAddress(), kv.address.getPort());
        s.setSoTimeout(60_000);
        return s;
    }

    @Test
    void tenClientsThatPipelineLargeGetsAndNeverReadHoldAtMostTheirBudget() throws Exception {
        byte[] gets = pipelinedGets(20_000);
        long heapBefore = heapAfterGc();
        long nativeBefore = nativeRss();
        List<Socket> hostile = new ArrayList<>();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        try {
            for (int c = 0; c < 10; c++) {
                Socket s = connect();
                hostile.add(s);
                writes.add(CompletableFuture.runAsync(() -> writeUntilClosed(s, gets)));
            }
            awaitOutputStill();
            long heap = heapAfterGc();
            long nativeNow = nativeRss();
            System.out.printf("kv reply budget: 10 clients not reading, heap %d -> %d MiB, RSS beside the heap %d "
                    + "-> %d MiB%n", heapBefore >> 20, heap >> 20, nativeBefore >> 20, nativeNow >> 20);
            assertTrue(heap < heapBefore + 10L * BUDGET + SLACK, "heap grew from " + (heapBefore >> 20)
                    + " MiB to " + (heap >> 20) + " MiB, over 10 budgets of " + (BUDGET >> 20) + " MiB");
            assertTrue(nativeNow < nativeBefore + 10L * BUDGET + SLACK, "RSS beside the heap grew from "
                    + (nativeBefore >> 20) + " MiB to " + (nativeNow >> 20));
            assertOthersServedWithin50Ms();
        } finally {
            for (Socket s : hostile) {
                s.close();
            }
        }
        for (CompletableFuture<Void> w : writes) {
            w.get(60, TimeUnit.SECONDS);
        }
        awaitConnections(0);
        long heapAfter = heapAfterGc();
        System.out.printf("kv reply budget: heap %d MiB after the clients left%n", heapAfter >> 20);
        assertTrue(heapAfter < heapBefore + SLACK / 2, "heap " + (heapAfter >> 20) + " MiB after the clients left, "
                + (heapBefore >> 20) + " before");
    }

    @Test
    void anMgetLargerThanTheBudgetStreamsToAReaderWhoPausesMidway() throws Exception {
        int n = 50_000;
        String[] args = new String[n + 1];
        args[0] = "MGET";
        for (int i = 0; i < n; i++) {
            args[i + 1] = key(i % KEYS);
        }
        long heapBefore = heapAfterGc();
        try (Socket s = connect()) {
            OutputStream out = s.getOutputStream();
            out.write(Resp.bytes(Resp.multibulk(args)));
            out.flush();
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16));
            assertEquals("*" + n, Resp.line(in));
            readElements(in, 0, 1000); // a hundred megabytes in, the reader stops a while
            awaitOutputStill();
            long heap = heapAfterGc();
            System.out.printf("kv reply budget: MGET of %d x %d KiB paused, heap %d -> %d MiB%n", n, VALUE >> 10,
                    heapBefore >> 20, heap >> 20);
            assertTrue(heap < heapBefore + BUDGET + SLACK, "heap grew from " + (heapBefore >> 20) + " MiB to "
                    + (heap >> 20) + " MiB during one MGET, its budget " + (BUDGET >> 20) + " MiB");
            readElements(in, 1000, n);
            out.write(Resp.bytes(Resp.multibulk("PING")));
            out.flush();
            assertEquals("+PONG", Resp.line(in)); // nothing more of the MGET came before it
        }
    }

    @Test
    void withOverBudgetCloseAClientOwedMoreThanTheBudgetIsClosedAndOthersStayServed() throws Exception {
        try (RunningKv closing = RunningKv.start("samples.kv.reply-budget = 256 KiB\nsamples.kv.over-budget = close");
             Jedis jedis = closing.client()) {
            byte[] value = values[0];
            jedis.set("big".getBytes(StandardCharsets.US_ASCII), value);
            long connections = closing.node.counters.connections.sum();
            try (Socket s = new Socket(closing.address.getAddress(), closing.address.getPort())) {
                s.setSoTimeout(60_000);
                StringBuilder gets = new StringBuilder();
                for (int i = 0; i < 2000; i++) { // 200 MB of replies, never read while they are made
                    gets.append(Resp.multibulk("GET", "big"));
                }
                CompletableFuture<Void> writing = CompletableFuture.runAsync(() ->
                        writeUntilClosed(s, Resp.bytes(gets.toString())));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (closing.node.counters.connections.sum() >= connections + 1) {
                    assertTrue(System.nanoTime() < deadline, "the connection owed 200 MB is still open");
                    TimeUnit.MILLISECONDS.sleep(20);
                }
                writing.get(60, TimeUnit.SECONDS);
                long got = 0;
                try {
                    for (int n; (n = s.getInputStream().read(new byte[65536])) > 0; ) {
                        got += n;
                    }
                } catch (IOException reset) {
                    // closed with a reset, as redis-server closes a client past its hard limit
                }
                assertTrue(got < 2000L * value.length, got + " bytes: every reply came");
            }
            assertEquals("PONG", jedis.ping()); // the client that reads its replies is served on
        }
    }

    /** Elements {@code from} to {@code to} of the MGET above, each whole and the value of its key. */
    private void readElements(DataInputStream in, int from, int to) throws IOException {
        byte[] value = new byte[VALUE];
        for (int i = from; i < to; i++) {
            assertEquals("$" + VALUE, Resp.line(in), "element " + i);
            in.readFully(value);
            if (i % 997 == 0) {
                assertArrayEquals(values[i % KEYS], value, "element " + i);
            }
            assertEquals("", Resp.line(in), "element " + i);
        }
    }

    private static byte[] pipelinedGets(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(Resp.multibulk("GET", key(i % KEYS)));
        }
        return Resp.bytes(b.toString());
    }

    private static void writeUntilClosed(Socket s, byte[] request) {
        try {
            s.getOutputStream().write(request);
        } catch (IOException e) {
            // closed by the test while the server no longer read
        }
    }

    /** 100 GETs of a small key from a client of its own: 95 of them answered within 50 ms. */
    private void assertOthersServedWithin50Ms() {
        try (Jedis jedis = kv.client()) {
            jedis.set("small", "v");
            long[] micros = new long[100];
            for (int i = 0; i < micros.length; i++) {
                long start = System.nanoTime();
                assertEquals("v", jedis.get("small"));
                micros[i] = (System.nanoTime() - start) / 1000;
            }
            Arrays.sort(micros);
            System.out.printf("kv reply budget: another client's GET beside them: median %d us, p95 %d us, max %d"
                    + " us%n", micros[50], micros[95], micros[99]);
            assertTrue(micros[95] < 50_000, "p95 " + micros[95] + " us");
        }
    }

    /**
     * Until the server's output stands still for a second: every connection has given out all its budget
     * allows, and the kernel's buffers are full.
     */
    private void awaitOutputStill() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long last = -1;
        int still = 0;
        while (still < 5) {
            assertTrue(System.nanoTime() < deadline, "the server's output did not settle within 60 s");
            TimeUnit.MILLISECONDS.sleep(200);
            long now = kv.node.counters.outputBytes.sum();
            still = now == last ? still + 1 : 0;
            last = now;
        }
    }

    private void awaitConnections(long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (kv.node.counters.connections.sum() != n) {
            assertTrue(System.nanoTime() < deadline, "connections " + kv.node.counters.connections.sum());
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** Resident memory less the heap's committed part (at most what of it is resident): native buffers, stacks. */
    private static long nativeRss() {
        return Rss.now() - ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
    }

    private static long heapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
