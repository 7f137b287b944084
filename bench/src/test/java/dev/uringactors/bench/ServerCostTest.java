package dev.uringactors.bench;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A server's cost as the benches read it, here of this very JVM: its CPU, and the bytes its threads allocate. */
class ServerCostTest {
    private static final int MIB = 1 << 20;

    @Test
    void theBytesARingThreadAllocatesAreCountedApartFromTheRest() throws Exception {
        ServerCost cost = ServerCost.ofJvm(ProcessHandle.current().pid());
        CountDownLatch measured = new CountDownLatch(1);
        CountDownLatch allocated = new CountDownLatch(2);
        // Alive until measured: jcmd lists the threads that are (a server's ring threads live as long as it).
        Thread ring = new Thread(() -> allocateThenWait(300, allocated, measured), "uring-ring-7");
        Thread other = new Thread(() -> allocateThenWait(200, allocated, measured), "someone-else");
        ring.start();
        other.start();
        try {
            assertTrue(allocated.await(60, TimeUnit.SECONDS), "the threads allocated");
            ServerCost.PerOperation per = cost.per(1);
            // jcmd gives three significant digits: 300 MiB reads as 300M at worst
            assertTrue(per.ringBytes() >= 299.0 * MIB && per.ringBytes() < 320.0 * MIB, per.describe());
            assertTrue(per.allBytes() >= per.ringBytes() + 199.0 * MIB, per.describe());
            assertTrue(per.cpuMicros() > 0, per.describe());
        } finally {
            measured.countDown();
            ring.join();
            other.join();
        }
    }

    @Test
    void aProcessThatIsNoJvmHasItsCpuCountedOnly() throws Exception {
        // busy first, then alive and idle while it is measured, as a server is
        Process busy = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; "
                + "echo busy-done; exec sleep 60").start();
        try {
            ServerCost cost = ServerCost.ofNative(busy.pid());
            assertEquals("busy-done", new java.io.BufferedReader(new java.io.InputStreamReader(
                    busy.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII)).readLine());
            ServerCost.PerOperation per = cost.per(1);
            assertTrue(Double.isNaN(per.allBytes()) && Double.isNaN(per.ringBytes()), per.describe());
            assertTrue(per.cpuMicros() > 0, per.describe());
            assertEquals(String.format(java.util.Locale.ROOT, "CPU %.2f us", per.cpuMicros()), per.describe());
        } finally {
            busy.destroyForcibly().waitFor();
        }
    }

    private static void allocateThenWait(int mebibytes, CountDownLatch allocated, CountDownLatch measured) {
        allocate(mebibytes);
        allocated.countDown();
        try {
            measured.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void allocate(int mebibytes) {
        List<byte[]> kept = new ArrayList<>();
        for (int i = 0; i < mebibytes; i++) {
            kept.add(new byte[MIB]);
            if (kept.size() > 8) {
                kept.remove(0);
            }
        }
    }
}
