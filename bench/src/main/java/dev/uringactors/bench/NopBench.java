package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;
import dev.uringactors.ring.CompletionHandler;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.SetupFlag;

import java.util.Locale;

/**
 * NOPs through one SINGLE_ISSUER | DEFER_TASKRUN ring on one thread: {@code batch} SQEs, one io_uring_enter that
 * submits them and waits for all, then one reap. This is the ring's own cost per request, with nothing behind it.
 * With {@code --c-nop PATH} it first runs liburing's C program the same way ({@code nop 1024 B sidt S}) and
 * prints the ratio. Run it under {@code taskset -c 1}: the C child inherits the pinning.
 */
final class NopBench {
    private static final int ENTRIES = 1024;

    private long completed;
    private final CompletionHandler count = (userData, res, flags) -> completed++;

    static void main(Args args) throws Exception {
        int batch = args.intValue("batch", 32);
        int seconds = args.intValue("seconds", 5);
        String cNop = args.string("c-nop", null);
        if (batch < 1 || batch > ENTRIES) {
            throw new IllegalArgumentException("--batch must be 1.." + ENTRIES + ": " + batch);
        }
        double c = cNop == null ? 0 : CNop.run(cNop, ENTRIES, batch, seconds);
        double java = new NopBench().measure(batch, seconds);
        FigureRecorder figures = args.figures("nop");
        figures.record("uring-actors", "batch", batch, "NOPs/s", java);
        if (c > 0) {
            System.out.printf(Locale.ROOT, "c-nop batch=%d: %.0f ops/s (liburing, same run)%n", batch, c);
            figures.record("liburing (C)", "batch", batch, "NOPs/s", c);
            System.out.printf(Locale.ROOT, "ratio java/c batch=%d: %.2f%n", batch, java / c);
        }
        System.out.printf(Locale.ROOT, "nop batch=%d: %.0f ops/s%n", batch, java);
    }

    private double measure(int batch, int seconds) {
        RingOptions options = RingOptions.defaults().withEntries(ENTRIES)
                .withFlags(SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
        try (Ring ring = Ring.open(options)) {
            run(ring, batch, 2_000_000_000L); // JIT warm-up
            completed = 0;
            long start = System.nanoTime();
            run(ring, batch, seconds * 1_000_000_000L);
            return completed * 1e9 / (System.nanoTime() - start);
        }
    }

    private void run(Ring ring, int batch, long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 64; i++) {
                for (int j = 0; j < batch; j++) {
                    ring.nextSqe().prepNop().userData(j);
                }
                ring.submitAndWait(batch);
                ring.reap(count);
            }
        }
    }
}
