package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * IORING_REGISTER_IOWQ_MAX_WORKERS. Each SPLICE out of an empty pipe runs in an io-wq worker (SPLICE always
 * does, as unbounded work) and blocks there until something is written. Each case runs on a thread of its own,
 * whose io-wq, and whose {@code iou-wrk-<tid>} workers, are the case's alone.
 */
@ExtendWith(RequiresIoUring.class)
class IoWqMaxWorkersTest {
    private static final int SPLICES = 6;
    private static final int CAP = 2;

    @Test
    void withoutACapEveryBlockedSpliceHasAWorkerOfItsOwn() throws Exception {
        assertEquals(SPLICES, blockedSplices(ring -> { }, SPLICES));
    }

    @Test
    void theCapHoldsTheWorkersToItAndTheRestWaitTheirTurn() throws Exception {
        assertEquals(CAP, blockedSplices(ring -> {
            IoWqWorkers before = ring.registerIoWqMaxWorkers(0, CAP);
            assertTrue(before.unbounded() > CAP, "the kernel's own cap (RLIMIT_NPROC) is larger: " + before);
            assertEquals(new IoWqWorkers(before.bounded(), CAP), ring.registerIoWqMaxWorkers(0, 0),
                    "0 leaves each value as it is, and the kernel writes back what is in force");
        }, CAP));
    }

    @Test
    void negativeCapsAreRefusedBeforeTheKernelSeesThem() {
        try (Ring ring = Ring.open(4)) {
            assertThrows(IllegalArgumentException.class, () -> ring.registerIoWqMaxWorkers(-1, 0));
        }
    }

    /**
     * On a new thread: a ring, {@code cap} applied to it, {@link #SPLICES} splices out of empty pipes; waits until
     * {@code expected} workers block in them, then writes a byte to every pipe and waits for every splice to
     * complete, checking after each reap that the workers stay at or under {@code expected}. Returns the most
     * workers seen.
     */
    private static long blockedSplices(Consumer<Ring> cap, int expected) throws Exception {
        CompletableFuture<Long> most = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                most.complete(spliceOnThisThread(cap, expected));
            } catch (Throwable t) {
                most.completeExceptionally(t);
            }
        }, "io-wq-cap-test");
        thread.start();
        try {
            return most.get(30, TimeUnit.SECONDS);
        } finally {
            thread.join();
        }
    }

    private static long spliceOnThisThread(Consumer<Ring> cap, int expected) {
        long tid = ProcessThreads.currentTid();
        List<Pipe> pipes = new ArrayList<>();
        try (Ring ring = Ring.open(16, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
             NativeBuffer oneByte = NativeBuffer.allocate(1)) {
            cap.accept(ring);
            for (int i = 0; i < 2 * SPLICES; i++) {
                pipes.add(new Pipe());
            }
            for (int i = 0; i < SPLICES; i++) { // from source i to sink i
                ring.nextSqe().prepSplice(pipes.get(2 * i).readFd, -1, pipes.get(2 * i + 1).writeFd, -1, 1, 0)
                        .userData(i);
            }
            ring.submit();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ProcessThreads.ioWorkersOf(tid) < expected) {
                assertTrue(System.nanoTime() < deadline, "waited 10 s for " + expected + " workers, have "
                        + ProcessThreads.ioWorkersOf(tid));
                ring.pollCompletions(); // enters the kernel: runs task work, where io-wq may create a worker
            }
            long most = ProcessThreads.ioWorkersOf(tid);
            assertEquals(0, ring.cqReady(), "every splice is blocked");
            for (int i = 0; i < SPLICES; i++) {
                assertEquals(1, LibC.write(pipes.get(2 * i).writeFd, oneByte.address(), 1));
            }
            Reaped done = new Reaped();
            while (done.cqes.size() < SPLICES) {
                done.awaitMore(ring, 1);
                most = Math.max(most, ProcessThreads.ioWorkersOf(tid));
                assertTrue(most <= expected, most + " workers, at most " + expected + " expected");
            }
            done.cqes.forEach(c -> assertEquals(1, c.res(), "splice " + c.userData() + " moved its byte"));
            return most;
        } finally {
            pipes.forEach(Pipe::close);
        }
    }
}
