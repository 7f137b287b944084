package dev.uringactors.actors;

import dev.uringactors.ring.RingStats;
import dev.uringactors.ring.wait.WaitStats;

/**
 * What one ring's loop has done.
 *
 * @param ring the ring's index
 * @param generation 1 for the ring first opened at this index, one more after each restart
 * @param waitStrategy interrupt, classic or hybrid
 * @param ringStats enters, SQEs submitted, completions, CQ overflow flushes, dropped CQEs
 * @param wakeSignals eventfd writes other threads made to wake the loop
 * @param turns loop turns
 * @param tasksRun tasks (actor mailbox runs) run
 * @param requestsInFlight requests waiting for their final completion
 * @param backlog requests waiting for room in the SQ
 * @param cpuTimeNanos CPU time the loop thread has used
 * @param stuckTasks tasks that ran longer than {@code uring.dispatcher.stuck-task-warning} (each was logged)
 * @param waitStats where a polling wait strategy's time went (sleeps and what they cost, spinning, blocking)
 * @param tcp what the ring's connections and listeners met
 * @param fixedBufferUses file reads and writes that went out with a registered buffer (READ_FIXED, WRITE_FIXED)
 */
public record RingLoopStats(int ring, int generation, String waitStrategy, RingStats ringStats, long wakeSignals, long turns,
                            long tasksRun, long requestsInFlight, int backlog, long cpuTimeNanos, long stuckTasks,
                            WaitStats waitStats, TcpStats tcp, long fixedBufferUses) {
}
