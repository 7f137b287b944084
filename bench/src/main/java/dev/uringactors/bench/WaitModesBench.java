package dev.uringactors.bench;

import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.bench.figures.FigureRecorder;
import dev.uringactors.bench.figures.Plot;
import org.apache.pekko.util.ByteString;

import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The same workload, O_DIRECT 4 KiB random reads at a small depth (completions take tens of microseconds), under
 * each wait strategy: IOPS and the ring thread's CPU per read; then again with {@code busy} application threads
 * spinning on arithmetic, whose progress shows how much CPU the ring left them (the hybrid IOPOLL patch's point).
 */
final class WaitModesBench {
    private static final int BLOCK = 4096;

    private WaitModesBench() {
    }

    static void main(Args args) throws Exception {
        Path file = Path.of(args.string("file", "/tmp/uring-bench.dat"));
        int seconds = args.intValue("seconds", 5);
        int qd = args.intValue("qd", 1);
        int busy = args.intValue("busy", 2);
        long blocks = FileReadBench.ensureFile(file, (long) args.intValue("size-mib", 1024) << 20) / BLOCK;
        FigureRecorder figures = args.figures("wait-modes-" + FileReadBench.device(file) + "-qd" + qd);
        // The busy run first: the idle one's summary is the last line.
        for (int threads : busy > 0 ? new int[] {busy, 0} : new int[] {0}) {
            List<String> summary = new ArrayList<>();
            for (String mode : MODES) {
                summary.add(run(file, mode, qd, threads, seconds, blocks, figures));
            }
            System.out.printf(Locale.ROOT, "wait-modes qd=%d busy=%d: %s%n", qd, threads, String.join(", ", summary));
        }
    }

    static final String[] MODES = {"interrupt", "classic", "hybrid"};

    /** One run; returns "<mode> <N> IOPS <C>% ring" for the summary line. */
    private static String run(Path file, String mode, int qd, int busyThreads, int seconds, long blocks,
                              FigureRecorder figures) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong appWork = new AtomicLong();
        List<Thread> busy = new ArrayList<>();
        for (int i = 0; i < busyThreads; i++) {
            Thread t = new Thread(() -> spin(stop, appWork), "busy-" + i);
            t.setDaemon(true);
            t.start();
            busy.add(t);
        }
        try (BenchSystem bench = new BenchSystem("wait-strategy = " + mode)) {
            FileHandle handle = UringFiles.get(bench.system)
                    .open(file, StandardOpenOption.READ, UringOpenOption.DIRECT).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            Tally tally = new Tally();
            bench.spawnOnRing(LoadActor.<ByteString>create(bench.files.ring(0), replyTo -> new RingProtocol.Read(
                    handle, ThreadLocalRandom.current().nextLong(blocks) * BLOCK, BLOCK, replyTo), qd, tally), "read-load");
            Thread.sleep(2000);
            RingLoopStats before = bench.stats();
            long reads0 = tally.completed();
            long work0 = appWork.get();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long elapsed = System.nanoTime() - t0;
            RingLoopStats after = bench.stats();
            long reads = tally.completed() - reads0;
            tally.checkNoFailures();
            System.out.printf(Locale.ROOT, "wait-modes %s busy=%d qd=%d: %.0f IOPS, %.1f ring-cpu-us/op, "
                            + "ring thread %.0f%% of a core, app %.1f M iterations/s%n",
                    mode, busyThreads, qd, reads * 1e9 / elapsed,
                    (after.cpuTimeNanos() - before.cpuTimeNanos()) / 1e3 / Math.max(1, reads),
                    100.0 * (after.cpuTimeNanos() - before.cpuTimeNanos()) / elapsed,
                    (appWork.get() - work0) * 1e3 / elapsed);
            double iops = reads * 1e9 / elapsed;
            double ringShare = 100.0 * (after.cpuTimeNanos() - before.cpuTimeNanos()) / elapsed;
            figures.record(mode, "busy threads", busyThreads, "IOPS", iops);
            figures.record(mode, "busy threads", busyThreads, Plot.RING_THREAD_CPU, ringShare);
            var w0 = before.waitStats();
            var w1 = after.waitStats();
            long sleeps = w1.sleeps() - w0.sleeps();
            if (sleeps > 0 || w1.spinNanos() > w0.spinNanos()) {
                System.out.printf(Locale.ROOT, "  %s: %d sleeps of %.1f us asked, %.1f us taken; %d woke to a "
                                + "completion; spun %.0f%% of the time; %d blocks%n", mode, sleeps,
                        (w1.sleepRequestedNanos() - w0.sleepRequestedNanos()) / 1e3 / Math.max(1, sleeps),
                        (w1.sleepActualNanos() - w0.sleepActualNanos()) / 1e3 / Math.max(1, sleeps),
                        w1.readyOnWake() - w0.readyOnWake(), 100.0 * (w1.spinNanos() - w0.spinNanos()) / elapsed,
                        w1.blocks() - w0.blocks());
            }
            return String.format(Locale.ROOT, "%s %.0f IOPS %.0f%% ring", mode, iops, ringShare);
        } finally {
            stop.set(true);
            for (Thread t : busy) {
                t.join();
            }
        }
    }

    /** Application work: counts loop iterations of a little arithmetic. */
    private static void spin(AtomicBoolean stop, AtomicLong work) {
        long x = 1;
        while (!stop.get()) {
            for (int i = 0; i < 1000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            work.addAndGet(1000 + (x & 0)); // x is used so the loop is not removed
        }
    }
}
