package dev.uringactors.actors.internal.loop;

import com.typesafe.config.Config;
import dev.uringactors.actors.UringExtension;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;

/**
 * Makes a ring's loop thread the executor of a Pekko dispatcher ({@code executor = "<this class>"}, with
 * {@code uring-loop} naming the loop). Pekko builds executors lazily, may shut one down when no actor uses the
 * dispatcher and later build another: the executor it gets is a facade, and the loop's life belongs to the
 * {@link UringExtension}, not to Pekko.
 */
public final class RingLoopExecutorConfigurator extends ExecutorServiceConfigurator {
    static final String LOOP_KEY = "uring-loop";
    private static final ConcurrentHashMap<String, RingLoop> LOOPS = new ConcurrentHashMap<>();

    private final RingLoop loop;

    /** Made by Pekko for each ring dispatcher; the loop named in the dispatcher's config is its executor. */
    public RingLoopExecutorConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config, prerequisites);
        String key = config.getString(LOOP_KEY);
        this.loop = LOOPS.get(key);
        if (loop == null) {
            throw new IllegalStateException("no ring loop '" + key + "': its UringExtension has shut down");
        }
    }

    static void register(String key, RingLoop loop) {
        LOOPS.put(key, loop);
    }

    static void unregister(String key) {
        LOOPS.remove(key);
    }

    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
        return () -> new ExecutorFacade(loop::execute);
    }
}
