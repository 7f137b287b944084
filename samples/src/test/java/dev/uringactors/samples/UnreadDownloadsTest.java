package dev.uringactors.samples;

import dev.uringactors.ring.IoWqWorkers;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.ProcessThreads;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Clients that ask the file server for a large file and never read it. Each once parked a kernel worker (an
 * {@code iou-wrk} thread) in a SPLICE to its full, blocking socket: 200 such clients grew the server by 200
 * threads. Here 500 of them: the server's workers stay within the io-wq cap, another client is still answered
 * (how fast is printed, not asserted: speed is the benchmarks' to measure), and once they close, threads, fds
 * and RSS come back to where they were. It runs in the load tests' JVM (see the pom), whose heap is resident
 * whole from the start: RSS moves only with native memory.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnreadDownloadsTest {
    private static final int CLIENTS = 500;
    /** Sparse: it takes no disk, and every client is sent the same page-cache zeros. */
    private static final long HUGE = 200L << 20;
    /** A liveness bound, not a speed: a client starved by the stalled downloads would wait for ever. */
    private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(10);
    /** A file large enough to be spliced (uring.tcp.splice-threshold): it needs the kernel's workers. */
    private static final int SPLICED = 1 << 20;
    /** Each client costs the process about 6 fds: its socket, the server's, the file, the pipe's two ends. */
    private static final int FDS_PER_CLIENT = 6;
    /** Unread bytes each client holds before the stall is watched: its download is under way. */
    private static final int STARTED = 64 << 10;
    /** How long the stall is watched (the server's steady state came within a sample of the start here). */
    private static final long STALLED_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Threads that come and go by themselves: JIT compilers, GC helpers, Pekko's dispatcher pool. */
    private static final int JVM_THREAD_SLACK = 8;
    /**
     * What RSS beside the heap may stay above its baseline: code the JIT compiled meanwhile, the GC's own tables,
     * and what glibc keeps of freed memory: 37-45 MiB here, on the commit before this bound as well. The native
     * buffers, which a leak per download would show in, are bounded on their own, and exactly.
     */
    private static final long RSS_SLACK = 64L << 20;
    /**
     * Native buffers a ring's pool keeps for reuse once the downloads are gone: at most 16 MiB per size class, and
     * the downloads use two (the file pieces and the small writes).
     */
    private static final long POOL_KEEPS = 2 * (16L << 20);
    private static final int RINGS = 2;

    private Path base;
    private RunningServer running;
    /** The most io-wq workers the server may have: uring.io-wq.max-workers, bounded and unbounded, per ring. */
    private long workerCap;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(openFilesLimit() >= CLIENTS * FDS_PER_CLIENT + 1000L,
                "needs about " + CLIENTS * FDS_PER_CLIENT + " fds (the JVM raises its soft limit to the hard one)");
        base = Files.createTempDirectory("unread-downloads");
        Path root = Files.createDirectories(base.resolve("root"));
        try (RandomAccessFile huge = new RandomAccessFile(root.resolve("huge.bin").toFile(), "rw")) {
            huge.setLength(HUGE);
        }
        Files.writeString(root.resolve("small.txt"), "small");
        Files.write(root.resolve("spliced.bin"), new byte[SPLICED]);
        running = RunningServer.start((address, bound) -> FileServer.create(address, bound, root),
                "uring.rings = " + RINGS);
        IoWqWorkers perRing = running.settings().ioWqMaxWorkers();
        workerCap = RINGS * (long) (perRing.bounded() + perRing.unbounded());
    }

    @AfterAll
    void stop() throws IOException {
        if (running != null) {
            running.close();
        }
        if (base != null) {
            TempTree.delete(base);
        }
    }

    @Test
    void fiveHundredClientsThatNeverReadHoldNoThreadAndLeaveNothingBehind() throws Exception {
        assertEquals("small", fetch("/small.txt").text()); // warmed up: the ring's file actor, the server's pools
        System.gc();
        long threads = ProcessThreads.all();
        long workers = ProcessThreads.ioWorkers();
        // What a download holds: its socket, the file, a splice's pipe.
        OpenFds.Snapshot fds = OpenFds.snapshot(OpenFds.Kind.SOCKETS, OpenFds.Kind.PIPES, OpenFds.Kind.under(base));
        long rss = Rss.now() - Runtime.getRuntime().totalMemory(); // beside the heap, which the JVM sizes itself
        long pooled = NativeBuffer.liveBytes();
        List<Socket> clients = new ArrayList<>();
        long peakWorkers;
        long peakThreads;
        long servedInMillis;
        long splicedInMillis;
        try (Peak peak = new Peak("io-workers", ProcessThreads::ioWorkers);
             Peak peakAll = new Peak("threads", ProcessThreads::all)) {
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(requestHuge());
            }
            await("every client to hold " + (STARTED >> 10) + " KiB unread", () -> clients.stream().allMatch(c -> {
                try {
                    return c.getInputStream().available() >= STARTED;
                } catch (IOException e) {
                    return false;
                }
            }));
            LockSupport.parkNanos(STALLED_NANOS); // the clients stall: the peak is of the server stuck with them
            long start = System.nanoTime();
            assertEquals("small", answered("/small.txt").text());
            servedInMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            start = System.nanoTime();
            assertEquals(SPLICED, answered("/spliced.bin").body().length);
            splicedInMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            peakWorkers = peak.peak();
            peakThreads = peakAll.peak();
        } finally {
            for (Socket c : clients) {
                c.close(); // unread bytes: the close resets the connection
            }
        }
        System.out.printf("%d unread downloads of 200 MiB: threads %d before (%d io-wq workers), %d at most, of "
                        + "which io-wq workers %d (cap %d); another client served a small file in %d ms, 1 MiB "
                        + "spliced in %d ms%n", CLIENTS, threads, workers, peakThreads, peakWorkers, workerCap,
                servedInMillis, splicedInMillis);
        assertTrue(peakWorkers <= workerCap, peakWorkers + " io-wq workers, cap " + workerCap);

        // Idle workers end after 5 s, but the kernel keeps the last one of each kind (bounded, unbounded) per ring.
        long threadLimit = threads - workers + JVM_THREAD_SLACK + 2L * RINGS;
        await("threads back to " + threadLimit, () -> ProcessThreads.all() <= threadLimit);
        fds.assertNoneNew("sockets, files or pipes left open");
        await("native buffers back to what the rings' pools keep", () -> NativeBuffer.liveBytes()
                <= pooled + RINGS * POOL_KEEPS);
        await("RSS beside the heap back to within " + (RSS_SLACK >> 20) + " MiB of " + (rss >> 20) + " MiB",
                () -> Rss.now() - Runtime.getRuntime().totalMemory() <= rss + RSS_SLACK);
        System.out.printf("after they closed: threads %d (%d io-wq workers), RSS beside the heap %d MiB (%d before), "
                        + "native buffers %d MiB (%d before)%n", ProcessThreads.all(), ProcessThreads.ioWorkers(),
                (Rss.now() - Runtime.getRuntime().totalMemory()) >> 20, rss >> 20, NativeBuffer.liveBytes() >> 20,
                pooled >> 20);
    }

    /** A GET on a connection of its own, from connecting to the end of the response. */
    private HttpExchange.Response fetch(String target) throws IOException {
        try (HttpExchange exchange = new HttpExchange(running.address)) {
            return exchange.exchange(HttpExchange.get(target, ""));
        }
    }

    /** {@link #fetch}, failed unless answered within {@link #ANSWERED_WITHIN}. */
    private HttpExchange.Response answered(String target) {
        return assertTimeoutPreemptively(ANSWERED_WITHIN, () -> fetch(target), () -> target + " not answered within "
                + ANSWERED_WITHIN.toSeconds() + " s beside " + CLIENTS + " unread downloads");
    }

    private Socket requestHuge() throws IOException {
        Socket s = new Socket(running.address.getAddress(), running.address.getPort());
        s.getOutputStream().write(HttpExchange.get("/huge.bin", "").getBytes(StandardCharsets.US_ASCII));
        return s;
    }

    /** Polls {@code condition} for up to 20 s (idle io-wq workers take 5 s to end); fails naming what it awaited. */
    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "waited 20 s for " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // a polling interval: the server needs the CPU
        }
    }

    private static long openFilesLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        return Long.MAX_VALUE;
    }
}
