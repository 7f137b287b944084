package dev.uringactors.ring;

/**
 * The calling thread's scheduling policy set to SCHED_BATCH: scheduled as a normal thread of its nice value, but
 * a wake-up of it never preempts the thread running on its CPU; it runs when that thread's time slice ends or that
 * thread sleeps. A thread that a busy ring thread hands short tasks to, on the ring thread's CPU, then takes them
 * in batches instead of taking the CPU from the ring once a task. Any thread may lower its own policy so: no
 * privilege is needed.
 */
public final class BatchScheduling {
    private static final int SCHED_BATCH = 3;

    private BatchScheduling() {
    }

    /** Sets the calling thread's policy; returns 0, or -errno where the kernel refused (a seccomp filter). */
    public static int setForCurrentThread() {
        return LibC.sched_setscheduler(0, SCHED_BATCH, new int[] {0}) == 0 ? 0 : LibC.negErrno();
    }
}
