package dev.uringactors.bench;

import com.sun.nio.file.ExtendedOpenOption;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.bench.figures.FigureRecorder;
import org.apache.pekko.util.ByteString;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * 4 KiB reads at random aligned offsets, {@code qd} in flight, through the actors, then in the same run
 * through the JDK's AsynchronousFileChannel and through FileChannel on a pool of {@code qd} threads (as it is,
 * with each read's bytes kept in an array of their own, as a read's answer must be, and with each read a
 * CompletableFuture of its bytes on that pool, as an asynchronous API built on the pool answers); with
 * {@code --fio fio}, fio's io_uring engine on the same file first ({@code --fio-best true}: with its fastest
 * settings). Each figure comes with the CPU time its process spent per read over the measured window. With
 * {@code --rounds N}, the contenders take turns N times, each round's figures printed, then the median of the
 * rounds' ratios: the host's drift in the minutes of a run then falls on every contender alike.
 */
final class FileReadBench {
    static final int BLOCK = 4096;

    private FileReadBench() {
    }

    static void main(Args args) throws Exception {
        Path file = Path.of(args.string("file", "/tmp/uring-bench.dat"));
        boolean direct = args.bool("direct", true);
        int qd = args.intValue("qd", 32);
        int seconds = args.intValue("seconds", 10);
        long size = ensureFile(file, (long) args.intValue("size-mib", 1024) << 20);
        long blocks = size / BLOCK;
        FigureRecorder figures = args.figures("file-read-" + (direct ? "direct" : "buffered") + "-" + device(file));
        String fio = args.string("fio", null);
        if (fio != null) {
            boolean best = args.bool("fio-best", false);
            Throughput f = Fio.randRead(fio, file, direct, qd, seconds, best ? Fio.BEST : List.of());
            System.out.printf(Locale.ROOT, "fio direct=%b qd=%d: %.0f IOPS %.2f us/io (io_uring engine%s)%n", direct,
                    qd, f.perSecond(), f.cpuMicrosPerOp(), best ? ", " + String.join(" ", Fio.BEST) : "");
            record(figures, best ? "fio best" : "fio", qd, f);
        }
        String rings = args.string("rings", "auto");
        String backend = args.string("backend", "io-uring");
        int batch = args.intValue("batch", 1);
        boolean registered = args.bool("registered", false);
        boolean lend = args.bool("lend", false);
        boolean viaFiles = args.string("via", "actor").equals("files");
        String ours = oursName(rings, batch, registered, lend, viaFiles, backend);
        String settings = "rings = " + rings + ", backend = " + backend;
        if (lend && batch > 1) {
            throw new IllegalArgumentException("--lend true reads one position to a message: drop --batch");
        }
        if (registered && !rings.equals("1")) {
            throw new IllegalArgumentException("--registered true needs --rings 1: a registered file lives on one ring");
        }
        int rounds = args.intValue("rounds", 1);
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds takes 1 or more");
        }
        Round[] measured = new Round[rounds];
        for (int r = 0; r < rounds; r++) {
            UringRun uring = viaFiles ? uringFiles(file, direct, qd, settings, seconds, blocks, lend)
                    : uring(file, direct, qd, settings, seconds, blocks, batch, registered, lend);
            measured[r] = new Round(uring, asyncChannel(file, direct, qd, seconds, blocks),
                    channelPool(file, direct, qd, seconds, blocks, false),
                    channelPool(file, direct, qd, seconds, blocks, true),
                    channelPoolFutures(file, direct, qd, seconds, blocks));
            measured[r].print(direct, qd);
        }
        if (batch > 1) {
            System.out.printf("uring: reads sent %d to a message (UringFiles.read with positions)%n", batch);
        }
        if (viaFiles) {
            System.out.println("uring: reads through UringFiles (a CompletionStage per read), not an actor");
        }
        if (lend) {
            System.out.println("uring: reads lent to a reader in the ring's buffer (" + (viaFiles ? "UringFiles.read "
                    + "with a reader" : "ReadWith") + "), not copied to the heap: compare with filechannel-pool");
        }
        if (rounds > 1) {
            System.out.printf(Locale.ROOT, "median of %d rounds: uring %.0f IOPS, ratio uring/filechannel-pool %.2f,"
                            + " uring/filechannel-pool-kept %.2f, uring/filechannel-pool-futures %.2f%n", rounds,
                    median(measured, round -> round.uring().throughput().perSecond()),
                    median(measured, round -> round.ratio(round.pool())),
                    median(measured, round -> round.ratio(round.poolKept())),
                    median(measured, round -> round.ratio(round.poolFutures())));
        }
        record(figures, ours, qd, measured, round -> round.uring().throughput());
        record(figures, "async-channel", qd, measured, Round::async);
        record(figures, "filechannel-pool", qd, measured, Round::pool);
        record(figures, "filechannel-pool-kept", qd, measured, Round::poolKept);
        record(figures, "filechannel-pool-futures", qd, measured, Round::poolFutures);
    }

    /** One round: each contender measured once, one after another. */
    private record Round(UringRun uring, Throughput async, Throughput pool, Throughput poolKept,
                         Throughput poolFutures) {
        double ratio(Throughput peer) {
            return uring.throughput().perSecond() / peer.perSecond();
        }

        void print(boolean direct, int qd) {
            Throughput u = uring.throughput();
            System.out.printf(Locale.ROOT, "ratio uring/best-jdk: %.2f%n",
                    u.perSecond() / Math.max(async.perSecond(), pool.perSecond()));
            System.out.printf(Locale.ROOT, "file-read direct=%b qd=%d rings=%d: uring %.0f IOPS %.2f us/io, "
                            + "async-channel %.0f IOPS %.2f us/io, filechannel-pool %.0f IOPS %.2f us/io, "
                            + "filechannel-pool-kept %.0f IOPS %.2f us/io%n",
                    direct, qd, uring.rings(), u.perSecond(), u.cpuMicrosPerOp(), async.perSecond(),
                    async.cpuMicrosPerOp(), pool.perSecond(), pool.cpuMicrosPerOp(), poolKept.perSecond(),
                    poolKept.cpuMicrosPerOp());
            System.out.printf(Locale.ROOT, "bytes allocated a read: uring %.0f B, async-channel %.0f B, "
                            + "filechannel-pool %.0f B, filechannel-pool-kept %.0f B%n", u.bytesPerOp(),
                    async.bytesPerOp(), pool.bytesPerOp(), poolKept.bytesPerOp());
            System.out.printf(Locale.ROOT, "filechannel-pool-futures %.0f IOPS %.2f us/io%n", poolFutures.perSecond(),
                    poolFutures.cpuMicrosPerOp());
            System.out.printf(Locale.ROOT, "ratio uring/filechannel-pool-kept: %.2f%n", ratio(poolKept));
            System.out.printf(Locale.ROOT, "ratio uring/filechannel-pool-futures: %.2f%n", ratio(poolFutures));
        }
    }

    private static double median(Round[] rounds, ToDoubleFunction<Round> figure) {
        return HttpLoad.median(Arrays.stream(rounds).mapToDouble(figure).toArray());
    }

    /** A contender's median IOPS and CPU a read over the rounds. */
    private static void record(FigureRecorder figures, String series, int qd, Round[] rounds,
                               Function<Round, Throughput> contender) {
        record(figures, series, qd, new Throughput(median(rounds, r -> contender.apply(r).perSecond()),
                median(rounds, r -> contender.apply(r).cpuMicrosPerOp()),
                median(rounds, r -> contender.apply(r).bytesPerOp())));
    }

    private static void record(FigureRecorder figures, String series, int qd, Throughput t) {
        figures.record(series, "queue depth", qd, "IOPS", t.perSecond());
        figures.record(series, "queue depth", qd, "CPU us/read", t.cpuMicrosPerOp());
    }

    /** Our figures' name: what differs from the default path, e.g. "uring-actors (lent, 1 ring)". */
    private static String oursName(String rings, int batch, boolean registered, boolean lend, boolean viaFiles,
                                   String backend) {
        List<String> variant = new ArrayList<>();
        if (backend.equals("jdk")) {
            variant.add("JDK backend");
        }
        if (lend) {
            variant.add("lent");
        }
        if (batch > 1) {
            variant.add("batch " + batch);
        }
        if (registered) {
            variant.add("registered");
        }
        if (viaFiles) {
            variant.add("UringFiles");
        }
        if (!rings.equals("auto")) {
            variant.add(rings + (rings.equals("1") ? " ring" : " rings"));
        }
        return variant.isEmpty() ? "uring-actors" : "uring-actors (" + String.join(", ", variant) + ")";
    }

    /** The actors' figure, and how many rings carried it. */
    private record UringRun(Throughput throughput, int rings) {
    }

    static long ensureFile(Path file, long size) throws IOException {
        if (Files.exists(file) && Files.size(file) >= size) {
            return Files.size(file);
        }
        System.err.printf("writing %d MiB of random data to %s%n", size >> 20, file);
        try (OutputStream out = Files.newOutputStream(file)) {
            byte[] chunk = new byte[1 << 20];
            Random random = new Random(1);
            for (long n = 0; n < size; n += chunk.length) {
                random.nextBytes(chunk);
                out.write(chunk);
            }
        }
        return size;
    }

    /** The device {@code file} lives on ("zram0", "vda"): what its reads measure, and part of their workload's name. */
    static String device(Path file) throws IOException {
        String name = Files.getFileStore(file).name();
        return name.substring(name.lastIndexOf('/') + 1);
    }

    private static long randomOffset(long blocks) {
        return ThreadLocalRandom.current().nextLong(blocks) * BLOCK;
    }

    private static long[] randomOffsets(long blocks, int n) {
        long[] offsets = new long[n];
        for (int i = 0; i < n; i++) {
            offsets[i] = randomOffset(blocks);
        }
        return offsets;
    }

    /**
     * {@code qd} reads in flight in all, spread over the rings, each ring's share kept by an actor on it;
     * {@code settings} are the {@code uring} ones (rings, backend).
     */
    private static UringRun uring(Path file, boolean direct, int qd, String settings, int seconds, long blocks,
                                  int batch, boolean registered, boolean lend) throws Exception {
        try (BenchSystem bench = new BenchSystem(settings)) {
            Tally tally = startReads(bench, file, direct, qd, blocks, batch, registered, lend);
            Throughput throughput = Throughput.measure(tally::completed, 2, seconds);
            tally.checkNoFailures();
            return new UringRun(throughput, bench.uring.ringCount());
        }
    }

    /**
     * {@code qd} chains of reads through {@code UringFiles}, each read's completion starting the next; with
     * {@code lend}, each read lent to a reader that only counts its bytes, as the pool does nothing with its own.
     */
    private static UringRun uringFiles(Path file, boolean direct, int qd, String settings, int seconds, long blocks,
                                       boolean lend) throws Exception {
        try (BenchSystem bench = new BenchSystem(settings)) {
            FileHandle handle = bench.files.open(file, uringOptions(direct, false)).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            Tally tally = new Tally();
            for (int i = 0; i < qd; i++) {
                readOn(bench.files, handle.onRing(i % bench.uring.ringCount()), blocks, lend, tally);
            }
            Throughput throughput = Throughput.measure(tally::completed, 2, seconds);
            tally.checkNoFailures();
            return new UringRun(throughput, bench.uring.ringCount());
        }
    }

    private static void readOn(UringFiles files, FileHandle file, long blocks, boolean lend, Tally tally) {
        long position = randomOffset(blocks);
        CompletionStage<?> read = lend ? files.read(file, position, BLOCK, ByteBuffer::remaining)
                : files.read(file, position, BLOCK);
        read.whenComplete((bytes, failure) -> {
            if (failure != null) {
                tally.failure(failure);
            } else {
                tally.success();
                readOn(files, file, blocks, lend, tally);
            }
        });
    }

    /**
     * Starts {@code qd} random 4 KiB reads of {@code file} in flight through the actors, spread over the rings,
     * each ring's share kept by an actor on it; the tally counts the answers.
     */
    static Tally startReads(BenchSystem bench, Path file, boolean direct, int qd, long blocks) throws Exception {
        return startReads(bench, file, direct, qd, blocks, 1, false, false);
    }

    /**
     * As above, {@code batch} reads to a message ({@code qd / batch} batches in flight on each ring), the file
     * opened into the ring's registered table if asked (one ring only); with {@code lend}, each read is lent to a
     * reader that only counts the bytes (as the JDK contenders do nothing with theirs) instead of copied.
     */
    static Tally startReads(BenchSystem bench, Path file, boolean direct, int qd, long blocks, int batch,
                            boolean registered, boolean lend) throws Exception {
        FileHandle handle = bench.files.open(file, uringOptions(direct, registered))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        Tally tally = new Tally();
        int n = bench.uring.ringCount();
        for (int ring = 0; ring < n; ring++) {
            FileHandle onRing = handle.onRing(ring);
            int depth = qd / n + (ring < qd % n ? 1 : 0);
            if (lend) {
                bench.spawnOnRing(ring, LoadActor.<Integer>create(bench.files.ring(ring),
                        replyTo -> new RingProtocol.ReadWith<>(onRing, randomOffset(blocks), BLOCK,
                                ByteBuffer::remaining, replyTo),
                        depth, tally), "read-load");
            } else if (batch > 1) {
                bench.spawnOnRing(ring, LoadActor.<List<ByteString>>create(bench.files.ring(ring),
                        replyTo -> new RingProtocol.ReadBatch(onRing, randomOffsets(blocks, batch), BLOCK, replyTo),
                        Math.max(1, depth / batch), tally, batch), "read-load");
            } else {
                bench.spawnOnRing(ring, LoadActor.<ByteString>create(bench.files.ring(ring),
                        replyTo -> new RingProtocol.Read(onRing, randomOffset(blocks), BLOCK, replyTo),
                        depth, tally), "read-load");
            }
        }
        return tally;
    }

    private static OpenOption[] uringOptions(boolean direct, boolean registered) {
        List<OpenOption> options = new ArrayList<>(List.of(StandardOpenOption.READ));
        if (direct) {
            options.add(UringOpenOption.DIRECT);
        }
        if (registered) {
            options.add(UringOpenOption.REGISTERED);
        }
        return options.toArray(OpenOption[]::new);
    }

    private static OpenOption[] jdkOptions(boolean direct) {
        return direct ? new OpenOption[] {StandardOpenOption.READ, ExtendedOpenOption.DIRECT}
                : new OpenOption[] {StandardOpenOption.READ};
    }

    private static ByteBuffer alignedBuffer() {
        return ByteBuffer.allocateDirect(2 * BLOCK).alignedSlice(BLOCK).limit(BLOCK);
    }

    private static Throughput asyncChannel(Path file, boolean direct, int qd, int seconds, long blocks)
            throws Exception {
        ExecutorService callbacks = Executors.newFixedThreadPool(2);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong completed = new AtomicLong();
        CountDownLatch stopped = new CountDownLatch(qd); // each chain of reads ends once after stop
        try (AsynchronousFileChannel channel = AsynchronousFileChannel.open(file,
                java.util.Set.of(jdkOptions(direct)), callbacks)) {
            for (int i = 0; i < qd; i++) {
                ByteBuffer buffer = alignedBuffer();
                channel.read(buffer, randomOffset(blocks), buffer, new CompletionHandler<Integer, ByteBuffer>() {
                    @Override
                    public void completed(Integer n, ByteBuffer b) {
                        completed.incrementAndGet();
                        if (stop.get()) {
                            stopped.countDown();
                        } else {
                            b.clear().limit(BLOCK);
                            channel.read(b, randomOffset(blocks), b, this);
                        }
                    }

                    @Override
                    public void failed(Throwable e, ByteBuffer b) {
                        System.err.println("AsynchronousFileChannel read failed: " + e);
                        stopped.countDown();
                    }
                });
            }
            Throughput throughput = Throughput.measure(completed::get, 2, seconds);
            stop.set(true);
            stopped.await(10, TimeUnit.SECONDS);
            return throughput;
        } finally {
            callbacks.shutdown();
            callbacks.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /**
     * {@code qd} threads reading {@code file} in a loop, each into a buffer of its own; with {@code kept}, each
     * read's bytes copied into an array of their own, as an API that hands them on must (a read's answer, a
     * {@code ByteString}, outlives the buffer).
     */
    private static Throughput channelPool(Path file, boolean direct, int qd, int seconds, long blocks, boolean kept)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong completed = new AtomicLong();
        LongAdder keptBytes = new LongAdder();
        ExecutorService pool = Executors.newFixedThreadPool(qd);
        try (FileChannel channel = FileChannel.open(file, jdkOptions(direct))) {
            for (int i = 0; i < qd; i++) {
                pool.execute(() -> {
                    ByteBuffer buffer = alignedBuffer();
                    try {
                        while (!stop.get()) {
                            buffer.clear().limit(BLOCK);
                            channel.read(buffer, randomOffset(blocks));
                            if (kept) {
                                byte[] copy = new byte[buffer.flip().remaining()];
                                buffer.get(copy);
                                keptBytes.add(copy.length);
                            }
                            completed.incrementAndGet();
                        }
                    } catch (IOException e) {
                        System.err.println("FileChannel read failed: " + e);
                    }
                });
            }
            Throughput throughput = Throughput.measure(completed::get, 2, seconds);
            stop.set(true);
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
            if (kept && keptBytes.sum() != completed.get() * BLOCK) {
                throw new IllegalStateException("the pool kept " + keptBytes.sum() + " bytes of " + completed.get()
                        + " reads: a short read");
            }
            return throughput;
        }
    }

    /**
     * {@code qd} chains of reads, each read a {@code CompletableFuture} of its bytes (copied out of the thread's
     * buffer) run on a pool of {@code qd} threads, each completion starting the next read: the plain way to make
     * the pool asynchronous, and what {@code UringFiles.read} on the JDK backend does too, but with a chain's next
     * read run in place instead of queued.
     */
    private static Throughput channelPoolFutures(Path file, boolean direct, int qd, int seconds, long blocks)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong completed = new AtomicLong();
        CountDownLatch stopped = new CountDownLatch(qd); // each chain ends once after stop
        ExecutorService pool = Executors.newFixedThreadPool(qd);
        ThreadLocal<ByteBuffer> buffers = ThreadLocal.withInitial(FileReadBench::alignedBuffer);
        try (FileChannel channel = FileChannel.open(file, jdkOptions(direct))) {
            for (int i = 0; i < qd; i++) {
                readChain(channel, pool, buffers, blocks, stop, completed, stopped);
            }
            Throughput throughput = Throughput.measure(completed::get, 2, seconds);
            stop.set(true);
            stopped.await(10, TimeUnit.SECONDS);
            return throughput;
        } finally {
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static void readChain(FileChannel channel, ExecutorService pool, ThreadLocal<ByteBuffer> buffers,
                                  long blocks, AtomicBoolean stop, AtomicLong completed, CountDownLatch stopped) {
        CompletableFuture.supplyAsync(() -> {
            ByteBuffer buffer = buffers.get().clear().limit(BLOCK);
            try {
                channel.read(buffer, randomOffset(blocks));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            byte[] bytes = new byte[buffer.flip().remaining()];
            buffer.get(bytes);
            return bytes;
        }, pool).whenComplete((bytes, failure) -> {
            if (failure != null) {
                System.err.println("FileChannel read failed: " + failure);
                stopped.countDown();
            } else if (bytes.length != BLOCK) {
                System.err.println("FileChannel read " + bytes.length + " bytes of " + BLOCK);
                stopped.countDown();
            } else {
                completed.incrementAndGet();
                if (stop.get()) {
                    stopped.countDown();
                } else {
                    readChain(channel, pool, buffers, blocks, stop, completed, stopped);
                }
            }
        });
    }
}
