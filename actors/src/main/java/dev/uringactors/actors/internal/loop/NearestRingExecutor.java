package dev.uringactors.actors.internal.loop;

import java.util.List;
import java.util.concurrent.Executor;

/**
 * The executor of the nearest-ring dispatcher: a task submitted on a ring's thread runs on that ring, from its
 * local queue, with no other thread woken; a task submitted anywhere else runs {@code elsewhere} (Pekko's default
 * dispatcher). An actor on it (a stream a request handler materializes, say) runs where the message that
 * schedules it was sent: on a connection's ring while that connection drives it. Pekko's mailbox lets one thread
 * at a time run an actor, whichever it is.
 */
final class NearestRingExecutor implements Executor {
    private final List<RingLoop> loops;
    private final Executor elsewhere;

    NearestRingExecutor(List<RingLoop> loops, Executor elsewhere) {
        this.loops = List.copyOf(loops);
        this.elsewhere = elsewhere;
    }

    @Override
    public void execute(Runnable task) {
        for (RingLoop loop : loops) {
            if (loop.inLoop()) {
                loop.execute(task);
                return;
            }
        }
        elsewhere.execute(task);
    }
}
