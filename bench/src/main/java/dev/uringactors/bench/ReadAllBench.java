package dev.uringactors.bench;

import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.util.ByteString;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * {@code read-all}: a small file read whole through {@code UringFiles}, {@code --in-flight} at a time, as one
 * {@code readAll} (open, stat, read and close in one request) against the open, read and close it replaces (three
 * requests, one after another); rounds in turn, in one system of one ring. Prints each round's reads per second,
 * and per read the ring's SQEs, io_uring_enter calls and CQEs.
 */
final class ReadAllBench {
    private ReadAllBench() {
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 6);
        int rounds = args.intValue("rounds", 3);
        int inFlight = args.intValue("in-flight", 32);
        int bytes = args.intValue("kib", 4) * 1024;
        Path dir = Files.createTempDirectory("uring-read-all-bench");
        Path file = dir.resolve("file");
        byte[] content = new byte[bytes];
        new Random(1).nextBytes(content);
        Files.write(file, content);
        try (BenchSystem bench = new BenchSystem("")) {
            UringFiles files = bench.files;
            Function<Path, CompletionStage<ByteString>> readAll = files::readAll;
            Function<Path, CompletionStage<ByteString>> steps = path -> files.open(path, StandardOpenOption.READ)
                    .thenCompose(handle -> files.read(handle, 0, bytes)
                            .thenCompose(read -> files.close(handle).thenApply(closed -> read)));
            run(bench, "warm-up", readAll, file, inFlight, seconds, bytes);
            run(bench, "warm-up", steps, file, inFlight, seconds, bytes);
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                double one = run(bench, "readAll", readAll, file, inFlight, seconds, bytes);
                double three = run(bench, "open, read, close", steps, file, inFlight, seconds, bytes);
                ratios[r] = one / three;
                System.out.printf(Locale.ROOT, "round %d: readAll / open, read, close: %.2fx%n", r + 1, ratios[r]);
            }
            System.out.printf(Locale.ROOT, "read-all %d B, %d in flight: readAll %.2fx the open, read and close "
                    + "(median of %d rounds)%n", bytes, inFlight, HttpLoad.median(ratios), rounds);
        } finally {
            Files.deleteIfExists(file);
            Files.delete(dir);
        }
    }

    /** Reads per second of {@code read}, {@code inFlight} at a time, each checked for its length. */
    private static double run(BenchSystem bench, String name, Function<Path, CompletionStage<ByteString>> read,
                              Path file, int inFlight, int seconds, int bytes) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder done = new LongAdder();
        LongAdder inProgress = new LongAdder();
        for (int i = 0; i < inFlight; i++) {
            inProgress.increment();
            next(read, file, bytes, stop, done, inProgress);
        }
        Thread.sleep(1000);
        RingLoopStats before = bench.stats();
        long reads0 = done.sum();
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        long reads = done.sum() - reads0;
        double rate = reads * 1e9 / (System.nanoTime() - t0);
        RingLoopStats after = bench.stats();
        stop.set(true);
        while (inProgress.sum() > 0) {
            Thread.onSpinWait();
        }
        System.out.printf(Locale.ROOT, "%s: %.0f reads/s; a read: %.2f SQEs, %.2f enters, %.2f CQEs%n", name, rate,
                (after.ringStats().submitted() - before.ringStats().submitted()) / (double) reads,
                (after.ringStats().enters() - before.ringStats().enters()) / (double) reads,
                (after.ringStats().completions() - before.ringStats().completions()) / (double) reads);
        return rate;
    }

    private static void next(Function<Path, CompletionStage<ByteString>> read, Path file, int bytes,
                             AtomicBoolean stop, LongAdder done, LongAdder inProgress) {
        read.apply(file).whenComplete((data, failure) -> {
            if (failure != null || data.size() != bytes) {
                stop.set(true);
                System.err.println("a read failed: " + (failure != null ? failure : data.size() + " bytes"));
            } else {
                done.increment();
            }
            if (stop.get()) {
                inProgress.decrement();
            } else {
                next(read, file, bytes, stop, done, inProgress);
            }
        });
    }
}
