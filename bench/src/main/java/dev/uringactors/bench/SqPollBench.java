package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.nio.file.Path;
import java.util.Locale;

/**
 * 4 KiB random O_DIRECT reads at a fixed depth through one ring, without SQPOLL (the default ring: single
 * issuer, deferred task work) and with it, the ring thread pinned to CPU 1 and the SQ thread to CPU 0. Each mode
 * reports its IOPS and the CPU time per read of the ring thread and, with SQPOLL, of the SQ thread (from their
 * schedstat over the measured window).
 */
final class SqPollBench {
    private static final int RING_CPU = 1;
    private static final int SQ_CPU = 0;

    private SqPollBench() {
    }

    /** One mode's figures; {@code sqMicrosPerIo} is 0 without an SQ thread. */
    private record Run(double iops, double ringMicrosPerIo, double sqMicrosPerIo) {
        void record(FigureRecorder figures, String series, int qd) {
            figures.record(series, "queue depth", qd, "IOPS", iops);
            figures.record(series, "queue depth", qd, "ring thread CPU us/read", ringMicrosPerIo);
            if (sqMicrosPerIo > 0) {
                figures.record(series, "queue depth", qd, "SQ thread CPU us/read", sqMicrosPerIo);
            }
        }
    }

    static void main(Args args) throws Exception {
        Path file = Path.of(args.string("file", "/tmp/uring-bench.dat"));
        int qd = args.intValue("qd", 32);
        int seconds = args.intValue("seconds", 6);
        long blocks = FileReadBench.ensureFile(file, (long) args.intValue("size-mib", 1024) << 20)
                / FileReadBench.BLOCK;
        Run off = run("", file, qd, seconds, blocks);
        System.out.printf(Locale.ROOT, "sqpoll off: %.0f IOPS, ring thread %.2f us/io%n", off.iops(),
                off.ringMicrosPerIo());
        Run on = run("defer-taskrun = off, sqpoll { enabled = on, cpus = [" + SQ_CPU + "] }", file, qd, seconds,
                blocks);
        System.out.printf(Locale.ROOT, "sqpoll on: %.0f IOPS, ring thread %.2f us/io, SQ thread %.2f us/io "
                + "(ring thread %.2fx, IOPS %.2fx of off)%n", on.iops(), on.ringMicrosPerIo(), on.sqMicrosPerIo(),
                on.ringMicrosPerIo() / off.ringMicrosPerIo(), on.iops() / off.iops());
        System.out.printf(Locale.ROOT, "sqpoll file-read qd=%d: off %.0f IOPS %.2f us/io ring-thread, on %.0f IOPS "
                        + "%.2f us/io ring-thread %.2f us/io sq-thread%n", qd, off.iops(), off.ringMicrosPerIo(),
                on.iops(), on.ringMicrosPerIo(), on.sqMicrosPerIo());
        FigureRecorder figures = args.figures("sqpoll-" + FileReadBench.device(file));
        off.record(figures, "SQPOLL off", qd);
        on.record(figures, "SQPOLL on", qd);
    }

    private static Run run(String settings, Path file, int qd, int seconds, long blocks) throws Exception {
        try (BenchSystem bench = new BenchSystem(settings)) {
            int ringThread = ThreadCpu.find("uring-ring-0");
            ThreadCpu.pin(ringThread, RING_CPU);
            int sqThread = ThreadCpu.find("iou-sqp");
            Tally tally = FileReadBench.startReads(bench, file, true, qd, blocks);
            Thread.sleep(2_000); // warm-up, then a measuring window: not a wait for a result
            long reads0 = tally.completed();
            long ring0 = ThreadCpu.nanos(ringThread);
            long sq0 = sqThread > 0 ? ThreadCpu.nanos(sqThread) : 0;
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long reads = tally.completed() - reads0;
            double elapsed = (System.nanoTime() - t0) / 1e9;
            double ringMicros = (ThreadCpu.nanos(ringThread) - ring0) / 1e3;
            double sqMicros = sqThread > 0 ? (ThreadCpu.nanos(sqThread) - sq0) / 1e3 : 0;
            tally.checkNoFailures();
            return new Run(reads / elapsed, ringMicros / reads, sqMicros / reads);
        }
    }
}
