package dev.uringactors.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Operations per second over a measured window, and the CPU time this process spent per operation in that
 * window (every thread: the ring threads, the callers, GC and JIT), in microseconds, and the bytes its threads
 * allocated per operation (NaN where the operations ran in another process).
 */
record Throughput(double perSecond, double cpuMicrosPerOp, double bytesPerOp) {
    /**
     * Waits {@code warmupSeconds} and, if there was a warm-up, until the JIT is done compiling (one quiet second,
     * 30 s at most): on one CPU shared by dozens of busy threads its compiler threads get a small share, and the
     * contender measured first would otherwise be measured on code not yet compiled, the others on code compiled
     * for it. Then measures {@code seconds} of {@code counter}'s progress and this process's CPU.
     */
    static Throughput measure(LongSupplier counter, int warmupSeconds, int seconds) throws InterruptedException {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Thread.sleep(warmupSeconds * 1000L); // a measuring window, not a wait for a result
        if (warmupSeconds > 0) {
            awaitJitQuiet();
        }
        long c0 = counter.getAsLong();
        long cpu0 = os.getProcessCpuTime();
        long allocated0 = AllocatedBytes.total();
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        long ops = counter.getAsLong() - c0;
        long cpu = os.getProcessCpuTime() - cpu0;
        long allocated = AllocatedBytes.total() - allocated0;
        return new Throughput(ops * 1e9 / (System.nanoTime() - t0), ops == 0 ? Double.NaN : cpu / 1e3 / ops,
                ops == 0 ? Double.NaN : (double) allocated / ops);
    }

    private static void awaitJitQuiet() throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long start = System.nanoTime();
        long before = jit.getTotalCompilationTime();
        for (int second = 0; second < 30; second++) {
            Thread.sleep(1000); // a window in which the JIT's compile time must not grow
            long now = jit.getTotalCompilationTime();
            if (now == before) {
                break;
            }
            before = now;
        }
        System.err.printf(Locale.ROOT, "(warm-up: %.0f s more, until the JIT had been idle for a second)%n",
                (System.nanoTime() - start) / 1e9);
    }
}
