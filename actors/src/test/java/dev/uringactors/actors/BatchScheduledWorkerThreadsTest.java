package dev.uringactors.actors;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worker threads {@link BatchScheduledWorkerThreads} makes run under SCHED_BATCH, as the kernel reports them
 * ({@code /proc/thread-self/stat}), in a pool of one's own and as the JDK's common pool when named by its system
 * property, in a JVM of its own; the thread that makes a pool keeps its policy.
 */
class BatchScheduledWorkerThreadsTest {
    private static final int SCHED_OTHER = 0;
    private static final int SCHED_BATCH = 3;
    private static final String PROPERTY = "java.util.concurrent.ForkJoinPool.common.threadFactory";

    @Test
    void aPoolsWorkersRunUnderBatchAndTheCallerKeepsItsPolicy() throws Exception {
        ForkJoinPool pool = new ForkJoinPool(2, new BatchScheduledWorkerThreads(), null, false);
        try {
            assertEquals(SCHED_BATCH, pool.submit(BatchScheduledWorkerThreadsTest::policy).get(10, TimeUnit.SECONDS));
            assertEquals(SCHED_OTHER, policy(), "the policy of the thread that made the pool changed");
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void namedByThePropertyItMakesTheCommonPoolsWorkers() throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-D" + PROPERTY + "=" + BatchScheduledWorkerThreads.class.getName(),
                "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2",
                "-cp", System.getProperty("java.class.path"), CommonPoolPolicy.class.getName())
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("common pool policy " + SCHED_BATCH), output);
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

    /** Prints the policy of the common pool's worker that runs an async task. */
    static final class CommonPoolPolicy {
        public static void main(String[] args) throws Exception {
            int policy = CompletableFuture.supplyAsync(BatchScheduledWorkerThreadsTest::policy)
                    .get(10, TimeUnit.SECONDS);
            System.out.println("common pool policy " + policy);
        }
    }
}
