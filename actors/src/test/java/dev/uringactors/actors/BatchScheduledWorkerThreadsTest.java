package dev.uringactors.actors;

import dev.uringactors.ring.JavaCommand;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.SeccompFilter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The worker threads {@link BatchScheduledWorkerThreads} makes run under SCHED_BATCH, as the kernel reports them
 * ({@code /proc/thread-self/stat}), in a pool of one's own and as the JDK's common pool when named by its system
 * property, in a JVM of its own; the thread that makes a pool keeps its policy. Where the kernel refuses the
 * policy, the workers run as usual and the log says so once.
 */
class BatchScheduledWorkerThreadsTest {
    private static final int SCHED_OTHER = 0;
    private static final int SCHED_BATCH = 3;
    private static final String PROPERTY = "java.util.concurrent.ForkJoinPool.common.threadFactory";

    @Test
    void aPoolsWorkersRunUnderBatchWithTheSystemLoaderAndTheCallerKeepsItsPolicy() throws Exception {
        ForkJoinPool pool = new ForkJoinPool(2, new BatchScheduledWorkerThreads(), null, false);
        ClassLoader callers = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(new ClassLoader(callers) { });
        try {
            assertEquals(SCHED_BATCH, pool.submit(BatchScheduledWorkerThreadsTest::policy).get(10, TimeUnit.SECONDS));
            ClassLoader workers = pool.submit(() -> Thread.currentThread().getContextClassLoader())
                    .get(10, TimeUnit.SECONDS);
            assertEquals(ClassLoader.getSystemClassLoader(), workers, "not the loader of the thread that started it");
            assertEquals(SCHED_OTHER, policy(), "the policy of the thread that made the pool changed");
        } finally {
            Thread.currentThread().setContextClassLoader(callers);
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void namedByThePropertyItMakesTheCommonPoolsWorkers() throws Exception {
        String output = runCommonPool(false);
        assertTrue(output.contains("common pool policies " + SCHED_BATCH + " " + SCHED_BATCH), output);
        assertFalse(output.contains("refused"), output);
    }

    @Test
    void whereTheKernelRefusesThePolicyTheWorkersRunAsUsualAndTheLogSaysSoOnce() throws Exception {
        String output = runCommonPool(true);
        assumeFalse(output.contains("no seccomp filter: "), output);
        assertTrue(output.contains("common pool policies " + SCHED_OTHER + " " + SCHED_OTHER), output);
        assertEquals(1, output.split("SCHED_BATCH refused", -1).length - 1, output);
        assertTrue(output.contains("(EPERM)"), output);
    }

    /** A JVM of its own whose common pool takes its threads from the factory: its output. */
    private static String runCommonPool(boolean refused) throws Exception {
        List<String> command = JavaCommand.java();
        command.addAll(List.of("-D" + PROPERTY + "=" + BatchScheduledWorkerThreads.class.getName(),
                "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2",
                "-cp", System.getProperty("java.class.path"), CommonPoolPolicy.class.getName()));
        if (refused) {
            command.add("refused");
        }
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        return output;
    }

    /** The calling thread's scheduling policy: field 41 of its stat line. */
    static int policy() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // from the 3rd field on
            return Integer.parseInt(fields[38]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Prints the policies of two common-pool workers, each running one of two tasks that wait for each other; with
     * the argument {@code refused}, first refuses sched_setscheduler(2) to every thread with EPERM (a seccomp
     * filter, as a container's profile would), or says why it could not.
     */
    static final class CommonPoolPolicy {
        /** x86_64's number of sched_setscheduler(2). */
        private static final int SCHED_SETSCHEDULER = 144;

        public static void main(String[] args) throws Exception {
            if (args.length > 0) {
                String whyNot = SeccompFilter.refuseInThisProcess(Errno.EPERM, SCHED_SETSCHEDULER);
                if (whyNot != null) {
                    System.out.println("no seccomp filter: " + whyNot);
                    return;
                }
            }
            CountDownLatch both = new CountDownLatch(2);
            Supplier<Integer> policyWithTheOther = () -> {
                both.countDown();
                try {
                    if (!both.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the second worker did not start");
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return policy();
            };
            CompletableFuture<Integer> first = CompletableFuture.supplyAsync(policyWithTheOther);
            CompletableFuture<Integer> second = CompletableFuture.supplyAsync(policyWithTheOther);
            System.out.println("common pool policies " + first.get(20, TimeUnit.SECONDS) + " "
                    + second.get(20, TimeUnit.SECONDS));
        }
    }
}
