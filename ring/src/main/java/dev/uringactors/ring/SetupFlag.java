package dev.uringactors.ring;

import java.util.Set;

/**
 * {@code IORING_SETUP_*} flags this library can set up, with the kernel that brought each. {@link #companions}
 * are the flags the kernel requires alongside (the probe sets them when it tries a flag on its own).
 */
public enum SetupFlag {
    /** Busy-poll the device for completions instead of interrupts; O_DIRECT files on devices with poll queues. */
    IOPOLL(1, "5.1", 0),
    /** A kernel thread polls the SQ: submission without a system call while it is awake. */
    SQPOLL(1 << 1, "5.1", 0),
    /** Pin the SQPOLL thread to {@code sq_thread_cpu}. */
    SQ_AFF(1 << 2, "5.1", 1 << 1),
    /** The application chooses the CQ size (at least the SQ size). */
    CQSIZE(1 << 3, "5.5", 0),
    /** Clamp too large SQ/CQ sizes to the maximum instead of failing with EINVAL. */
    CLAMP(1 << 4, "5.6", 0),
    /** Share the io-wq (and with SQPOLL the SQ thread) of the ring named by {@code wq_fd}. */
    ATTACH_WQ(1 << 5, "5.6", 0),
    /** Create the ring disabled; the owner thread enables it. */
    R_DISABLED(1 << 6, "5.10", 0),
    /** Keep submitting the rest of a batch after an SQE fails. */
    SUBMIT_ALL(1 << 7, "5.18", 0),
    /** Run completion task work when the task next enters the kernel instead of interrupting it. */
    COOP_TASKRUN(1 << 8, "5.19", 0),
    /** Set IORING_SQ_TASKRUN in the SQ flags when task work waits, so a spinning owner knows to enter. */
    TASKRUN_FLAG(1 << 9, "5.19", 1 << 8),
    /** Only one task submits: lets the kernel skip locking and wake-ups. */
    SINGLE_ISSUER(1 << 12, "6.0", 0),
    /** Post completions only when the owner enters with GETEVENTS. Needs SINGLE_ISSUER; not with SQPOLL. */
    DEFER_TASKRUN(1 << 13, "6.1", 1 << 12),
    /** No SQ index array: SQEs are consumed in ring order. */
    NO_SQARRAY(1 << 16, "6.6", 0),
    /** With IOPOLL: sleep about half the observed completion time before polling. */
    HYBRID_IOPOLL(1 << 17, "6.13", 1);

    /** The bit in {@code io_uring_params.flags}. */
    public final int bit;
    /** The first kernel release with this flag. */
    public final String sinceKernel;
    final int companions;

    SetupFlag(int bit, String sinceKernel, int companions) {
        this.bit = bit;
        this.sinceKernel = sinceKernel;
        this.companions = companions;
    }

    static int mask(Set<SetupFlag> flags) {
        int mask = 0;
        for (SetupFlag f : flags) {
            mask |= f.bit;
        }
        return mask;
    }

    static boolean in(SetupFlag flag, int mask) {
        return (mask & flag.bit) != 0;
    }
}
