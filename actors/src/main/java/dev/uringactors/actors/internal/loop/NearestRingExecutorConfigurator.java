package dev.uringactors.actors.internal.loop;

import com.typesafe.config.Config;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * The executor of the nearest-ring dispatcher ({@code executor = "<this class>"}, with {@code uring-rings} naming
 * a system's rings): a task submitted on a ring's thread runs on that ring, from its local queue, with no other
 * thread woken; a task submitted anywhere else runs on Pekko's default dispatcher. An actor on it (a stream a
 * request handler materializes, say) runs where the message that schedules it was sent: on a connection's ring
 * while that connection drives it. Pekko's mailbox lets one thread at a time run an actor, whichever it is.
 */
public final class NearestRingExecutorConfigurator extends ExecutorServiceConfigurator {
    static final String RINGS_KEY = "uring-rings";
    private static final ConcurrentHashMap<String, NearestRing> RINGS = new ConcurrentHashMap<>();

    private final NearestRing nearest;

    /** Made by Pekko for the nearest-ring dispatcher; the rings named in its config are its executor. */
    public NearestRingExecutorConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config, prerequisites);
        String key = config.getString(RINGS_KEY);
        this.nearest = RINGS.get(key);
        if (nearest == null) {
            throw new IllegalStateException("no rings '" + key + "': their UringExtension has shut down");
        }
    }

    static void register(String key, List<RingLoop> loops, Executor elsewhere) {
        RINGS.put(key, new NearestRing(List.copyOf(loops), elsewhere));
    }

    static void unregister(String key) {
        RINGS.remove(key);
    }

    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
        return () -> new ExecutorFacade(nearest);
    }

    /** The ring whose thread submits a task, else {@code elsewhere}. */
    private record NearestRing(List<RingLoop> loops, Executor elsewhere) implements Executor {
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
}
