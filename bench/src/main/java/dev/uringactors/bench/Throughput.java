package dev.uringactors.bench;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * Operations per second over a measured window, and the CPU time this process spent per operation in that
 * window (every thread: the ring threads, the callers, GC and JIT), in microseconds.
 */
record Throughput(double perSecond, double cpuMicrosPerOp) {
    /** Waits {@code warmupSeconds}, then measures {@code seconds} of {@code counter}'s progress and this process's CPU. */
    static Throughput measure(LongSupplier counter, int warmupSeconds, int seconds) throws InterruptedException {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Thread.sleep(warmupSeconds * 1000L); // a measuring window, not a wait for a result
        long c0 = counter.getAsLong();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        long ops = counter.getAsLong() - c0;
        long cpu = os.getProcessCpuTime() - cpu0;
        return new Throughput(ops * 1e9 / (System.nanoTime() - t0), ops == 0 ? Double.NaN : cpu / 1e3 / ops);
    }
}
