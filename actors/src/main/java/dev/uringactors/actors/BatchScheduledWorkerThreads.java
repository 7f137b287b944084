package dev.uringactors.actors;

import dev.uringactors.ring.BatchScheduling;
import dev.uringactors.ring.Errno;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Worker threads for a {@link ForkJoinPool} that a ring thread's wake-up does not let take the ring's CPU at once
 * (each runs under SCHED_BATCH, {@link BatchScheduling}). Meant for the JDK's common pool:
 * {@code -Djava.util.concurrent.ForkJoinPool.common.threadFactory=dev.uringactors.actors.BatchScheduledWorkerThreads}.
 * <p>
 * Why: code that runs on a ring often hands a short task to the common pool, as pekko-grpc's Java API does once a
 * call ({@code CompletionStage} views of Scala futures run even {@code thenCompose} there). Where that pool's
 * workers share a CPU with the busy ring thread, the kernel gives the CPU to each worker it wakes, which runs the
 * one task and sleeps again: two context switches a task. Under SCHED_BATCH a woken worker waits for the ring's
 * time slice to end or the ring to sleep, then runs what has gathered. The cost: under a saturated CPU such a task
 * waits up to a time slice (milliseconds) longer. Where the kernel refuses the policy, the threads run as usual,
 * said once in the log.
 */
public final class BatchScheduledWorkerThreads implements ForkJoinPool.ForkJoinWorkerThreadFactory {
    private static final Logger log = LoggerFactory.getLogger(BatchScheduledWorkerThreads.class);
    private static final AtomicBoolean refusalSaid = new AtomicBoolean();

    @Override
    public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
        return new Worker(pool);
    }

    private static final class Worker extends ForkJoinWorkerThread {
        Worker(ForkJoinPool pool) {
            super(pool);
            // As the common pool's own workers: not the loader of whichever thread happened to start this one.
            setContextClassLoader(ClassLoader.getSystemClassLoader());
        }

        @Override
        protected void onStart() {
            super.onStart();
            int res = BatchScheduling.setForCurrentThread();
            if (res != 0 && refusalSaid.compareAndSet(false, true)) {
                log.warn("SCHED_BATCH refused for {} ({}): its workers run under the default policy (said once)",
                        getName(), Errno.name(res));
            }
        }
    }
}
