package dev.uringactors.bench;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.bench.figures.FigureRecorder;

import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.Deflater;

/**
 * A database-like load, as in the hybrid IOPOLL thread's RocksDB test: more worker threads than cores, each
 * compressing 4 KiB with {@link Deflater}, then reading 4 KiB at a random offset through the ring and waiting for
 * it, over and over. The ring's wait strategy decides how much CPU the workers keep for their own work.
 */
final class DbLikeBench {
    private static final int BLOCK = 4096;

    private DbLikeBench() {
    }

    static void main(Args args) throws Exception {
        Path file = Path.of(args.string("file", "/tmp/uring-bench.dat"));
        int workers = args.intValue("workers", 8);
        int seconds = args.intValue("seconds", 6);
        long blocks = FileReadBench.ensureFile(file, (long) args.intValue("size-mib", 1024) << 20) / BLOCK;
        List<String> summary = new ArrayList<>();
        FigureRecorder figures = args.figures("db-like-" + FileReadBench.device(file));
        for (String mode : WaitModesBench.MODES) {
            double opsPerSecond = run(file, mode, workers, seconds, blocks);
            System.out.printf(Locale.ROOT, "db-like %s workers=%d: %.0f ops/s%n", mode, workers, opsPerSecond);
            summary.add(String.format(Locale.ROOT, "%s %.0f ops/s", mode, opsPerSecond));
            figures.record(mode, "workers", workers, "ops/s", opsPerSecond);
        }
        System.out.printf(Locale.ROOT, "db-like workers=%d: %s%n", workers, String.join(", ", summary));
    }

    private static double run(Path file, String mode, int workers, int seconds, long blocks) throws Exception {
        try (BenchSystem bench = new BenchSystem("wait-strategy = " + mode)) {
            UringFiles files = UringFiles.get(bench.system);
            FileHandle handle = files.open(file, StandardOpenOption.READ, UringOpenOption.DIRECT)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder ops = new LongAdder();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                Thread t = new Thread(() -> work(files, handle, blocks, stop, ops), "db-worker-" + w);
                t.start();
                threads.add(t);
            }
            Thread.sleep(2000); // warm-up
            long ops0 = ops.sum();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double rate = (ops.sum() - ops0) * 1e9 / (System.nanoTime() - t0);
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            return rate;
        }
    }

    private static void work(UringFiles files, FileHandle handle, long blocks, AtomicBoolean stop, LongAdder ops) {
        byte[] page = new byte[BLOCK];
        byte[] compressed = new byte[2 * BLOCK];
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            while (!stop.get()) {
                for (int i = 0; i < BLOCK; i += 8) { // half random, half repeated: compressible like a page
                    page[i] = (byte) random.nextInt(i < BLOCK / 2 ? 256 : 4);
                }
                deflater.reset();
                deflater.setInput(page);
                deflater.finish();
                deflater.deflate(compressed);
                files.read(handle, random.nextLong(blocks) * BLOCK, BLOCK).toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
                ops.increment();
            }
        } catch (Exception e) {
            throw new IllegalStateException("a read failed", e);
        } finally {
            deflater.end();
        }
    }
}
