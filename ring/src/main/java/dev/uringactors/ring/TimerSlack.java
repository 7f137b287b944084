package dev.uringactors.ring;

/**
 * The calling thread's timer slack (prctl PR_SET_TIMERSLACK): how late the kernel may fire its timed sleeps to
 * batch wake-ups. The default of 50 us makes a 20 us sleep take 70 us; a thread that sleeps for a fraction of an
 * I/O's latency, as the hybrid wait does, needs it close to zero.
 */
public final class TimerSlack {
    private static final int PR_SET_TIMERSLACK = 29;

    private TimerSlack() {
    }

    /** Sets the calling thread's timer slack; returns false where the kernel refused. */
    public static boolean setForCurrentThread(long nanos) {
        return LibC.prctl(PR_SET_TIMERSLACK, Math.max(1, nanos), 0, 0, 0) == 0;
    }
}
