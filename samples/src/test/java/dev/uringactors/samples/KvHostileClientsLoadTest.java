package dev.uringactors.samples;

import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kv sample against hostile clients: refused and unterminated frames, a megabyte of garbage, 100,000
 * commands in one write, resets mid-pipeline. Each gets an answer or an error, no client's error reaches
 * another, the server keeps serving, and its sockets and resident memory come back to where they were. In the
 * load-test JVM (a heap touched whole at the start), so that RSS growth is native memory.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KvHostileClientsLoadTest {
    private static final long RSS_SLACK = 64L << 20;
    private RunningKv kv;

    @BeforeAll
    void start() throws Exception {
        kv = RunningKv.start("");
    }

    @AfterAll
    void stop() {
        if (kv != null) {
            kv.close();
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(kv.address.getAddress(), kv.address.getPort());
        s.setSoTimeout(30_000);
        return s;
    }

    private void assertServes() {
        try (Jedis jedis = kv.client()) {
            assertEquals("PONG", jedis.ping());
        }
    }

    static List<String> refusedFrames() {
        return List.of("*1\r\n$-5\r\n", "*2\r\n$3\r\nSET\r\n$1073741824\r\n", "*2000000\r\n",
                "*1\r\n$99999999999999999999999999999999999\r\n", "*1\r\n:1\r\n", "*1\r\n$01\r\n");
    }

    @ParameterizedTest
    @MethodSource("refusedFrames")
    void refusedFramesAreAnsweredWithAnErrorAndClosed(String frame) throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(("PING\r\n" + frame).getBytes(StandardCharsets.ISO_8859_1));
            String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertTrue(reply.startsWith("+PONG\r\n-ERR Protocol error: ") && reply.endsWith("\r\n"), reply);
        }
        assertServes();
    }

    @Test
    void anOverlongInlineLineIsRefused() throws Exception {
        try (Socket s = connect()) {
            OutputStream out = s.getOutputStream();
            byte[] line = "x".repeat(70 * 1024).getBytes(StandardCharsets.US_ASCII);
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    out.write(line);
                } catch (IOException e) {
                    // the server closed first
                }
            });
            String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertEquals("-ERR Protocol error: too big inline request\r\n", reply);
            writing.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void unterminatedFramesThenCloseOrReset() throws Exception {
        String[] frames = {"*3\r\n$3\r\nSET\r\n$1\r\nk", "*2\r\n$3\r\nGET\r\n$100\r\nabc", "*5", "GET k"};
        for (int i = 0; i < 200; i++) {
            try (Socket s = connect()) {
                if (i % 2 == 0) {
                    s.setSoLinger(true, 0); // reset
                }
                s.getOutputStream().write(frames[i % frames.length].getBytes(StandardCharsets.US_ASCII));
            }
        }
        assertServes();
    }

    @Test
    void aMegabyteOfGarbageGetsErrorsAndTheServerStaysUp() throws Exception {
        byte[] garbage = new byte[1 << 20];
        new Random(7).nextBytes(garbage);
        try (Socket s = connect()) {
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    s.getOutputStream().write(garbage);
                    s.shutdownOutput();
                } catch (IOException e) {
                    // closed by the server after a protocol error
                }
            });
            String reply = readUntilClosed(s.getInputStream());
            assertTrue(reply.startsWith("-ERR "), reply.substring(0, Math.min(200, reply.length())));
            writing.get(30, TimeUnit.SECONDS);
        }
        assertServes();
    }

    private static String readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[65536];
        try {
            for (int n; (n = in.read(buffer)) > 0; ) {
                all.write(buffer, 0, n);
            }
        } catch (SocketException e) {
            // reset by the server after its error reply: what came before counts
        }
        return all.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void aHundredThousandCommandsInOneWriteAreAnsweredInOrder() throws Exception {
        hundredThousandIncrs("one-write");
    }

    /** 100,000 INCRs of one key in one write: the replies are 1 to 100,000 in order. */
    private void hundredThousandIncrs(String key) throws Exception {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        String incr = "*2\r\n$4\r\nINCR\r\n$" + key.length() + "\r\n" + key + "\r\n";
        for (int i = 0; i < 100_000; i++) {
            request.write(incr.getBytes(StandardCharsets.US_ASCII));
        }
        try (Socket s = connect()) {
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    s.getOutputStream().write(request.toByteArray());
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            long base = -1;
            for (int i = 1; i <= 100_000; i++) {
                String line = Resp.line(in);
                long n = Long.parseLong(line.substring(1));
                if (base < 0) {
                    base = n - 1;
                }
                assertEquals(":" + (base + i), line);
            }
            writing.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void resetsMidPipelineAndOneClientsErrorsReachNoOther() throws Exception {
        AtomicBoolean hostile = new AtomicBoolean(true);
        Queue<Long> resetNanos = new ConcurrentLinkedQueue<>();
        CompletableFuture<Void> firstReset = new CompletableFuture<>();
        CompletableFuture<Void> resets = CompletableFuture.runAsync(() -> {
            byte[] pipeline = "SET r:a 1\r\nGET r:a\r\nINCR r:b\r\n".repeat(2000).getBytes(StandardCharsets.US_ASCII);
            byte[] bad = "*1\r\n$-7\r\n".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; hostile.get(); i++) { // until the good client is done: they overlap its work
                try (Socket s = connect()) {
                    s.setSoLinger(true, 0);
                    s.getOutputStream().write(i % 3 == 0 ? bad : pipeline);
                } catch (IOException e) {
                    // reset by the server after its error reply
                }
                resetNanos.add(System.nanoTime());
                firstReset.complete(null);
            }
        });
        long first;
        long last;
        try (Jedis jedis = kv.client()) {
            firstReset.get(30, TimeUnit.SECONDS); // the resets are under way before the good client starts
            first = System.nanoTime();
            for (int round = 0; round < 3; round++) {
                Pipeline p = jedis.pipelined();
                List<Response<String>> gets = new ArrayList<>();
                for (int i = 0; i < 10_000; i++) {
                    p.set("good:" + i, "v" + i + "." + round);
                    gets.add(p.get("good:" + i));
                }
                p.sync();
                for (int i = 0; i < 10_000; i++) {
                    assertEquals("v" + i + "." + round, gets.get(i).get());
                }
            }
            last = System.nanoTime();
        } finally {
            hostile.set(false);
            resets.get(60, TimeUnit.SECONDS);
        }
        // Without resets while it worked, the good client's clean replies would say nothing about them.
        long overlapping = resetNanos.stream().filter(t -> t > first && t < last).count();
        System.out.printf("kv hostile clients: %d resets, %d while the good client worked (%d ms)%n",
                resetNanos.size(), overlapping, TimeUnit.NANOSECONDS.toMillis(last - first));
        assertTrue(overlapping > 0, "no reset between the good client's first and last request, of "
                + resetNanos.size());
        assertServes();
    }

    @Test
    void socketsAndResidentMemoryComeBackAfterEveryHostileClient() throws Exception {
        hundredThousandIncrs("warm-up"); // the pools and buffers a busy connection uses, made before the baseline
        System.gc();
        OpenFds.Snapshot socketsBefore = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        long rssBefore = Rss.now();
        // A round of each case above, here: whichever of them ran before, or none, this test checks its own.
        for (String frame : refusedFrames()) {
            refusedFramesAreAnsweredWithAnErrorAndClosed(frame);
        }
        anOverlongInlineLineIsRefused();
        unterminatedFramesThenCloseOrReset();
        aMegabyteOfGarbageGetsErrorsAndTheServerStaysUp();
        aHundredThousandCommandsInOneWriteAreAnsweredInOrder();
        resetsMidPipelineAndOneClientsErrorsReachNoOther();

        socketsBefore.assertNoneNew("sockets after the hostile clients");
        System.gc();
        long rss = Rss.now();
        System.out.printf("kv hostile clients: RSS %d MiB before, %d MiB after%n", rssBefore >> 20, rss >> 20);
        assertTrue(rss < rssBefore + RSS_SLACK, "RSS grew from " + (rssBefore >> 20) + " MiB to " + (rss >> 20));
    }
}
