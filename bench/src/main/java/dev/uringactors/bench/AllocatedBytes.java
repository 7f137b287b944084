package dev.uringactors.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;

/**
 * The bytes this JVM's threads have allocated on the heap since it started. {@code getTotalThreadAllocatedBytes}
 * (JDK 21, and 17 since its update 9) counts ended threads too; the Java 17 API that {@code --release 17} compiles
 * against lacks it, so it is looked up at run time, and where it is missing the live threads' bytes are summed.
 */
final class AllocatedBytes {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final MethodHandle TOTAL = lookUpTotal();

    private AllocatedBytes() {
    }

    static long total() {
        if (TOTAL != null) {
            try {
                return (long) TOTAL.invoke(THREADS);
            } catch (Throwable e) {
                throw new IllegalStateException("getTotalThreadAllocatedBytes failed", e);
            }
        }
        long sum = 0;
        for (long bytes : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            sum += Math.max(bytes, 0); // -1: a thread that ended meanwhile
        }
        return sum;
    }

    private static MethodHandle lookUpTotal() {
        try {
            return MethodHandles.publicLookup().findVirtual(com.sun.management.ThreadMXBean.class,
                    "getTotalThreadAllocatedBytes", MethodType.methodType(long.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
