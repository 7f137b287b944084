package dev.uringactors.actors.internal.loop;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.UringExtension;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.dispatch.DispatcherConfigurator;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * Makes an executor of the rings the executor of a Pekko dispatcher ({@code executor = "<this class>"}, with
 * {@code uring-executor} naming it): a ring's loop thread, or the nearest ring ({@link NearestRingExecutor}).
 * Pekko builds executors lazily, may shut one down when no actor uses the dispatcher and later build another: the
 * executor it gets is a facade, and the loops' life belongs to the {@link UringExtension}, not to Pekko.
 */
public final class RingExecutorConfigurator extends ExecutorServiceConfigurator {
    private static final String EXECUTOR_KEY = "uring-executor";
    private static final ConcurrentHashMap<String, Executor> EXECUTORS = new ConcurrentHashMap<>();

    private final Executor executor;

    /** Made by Pekko for each dispatcher registered here; the executor named in its config is its executor. */
    public RingExecutorConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config, prerequisites);
        String key = config.getString(EXECUTOR_KEY);
        this.executor = EXECUTORS.get(key);
        if (executor == null) {
            throw new IllegalStateException("no ring executor '" + key + "': its UringExtension has shut down");
        }
    }

    /**
     * Registers dispatcher {@code id} with {@code system}, {@code executor} its executor, named by {@code key} (unique
     * to one set of rings) until {@link #unregister}; the rest of its settings are {@code throughput} and
     * {@code defaults}' (the default dispatcher's).
     */
    static void register(ActorSystem system, String id, String key, Executor executor, int throughput,
                         Config defaults) {
        EXECUTORS.put(key, executor);
        Config config = ConfigFactory.parseMap(Map.of(
                "id", id,
                "type", "Dispatcher",
                "executor", RingExecutorConfigurator.class.getName(),
                "throughput", throughput,
                EXECUTOR_KEY, key)).withFallback(defaults);
        system.dispatchers().registerConfigurator(id,
                new DispatcherConfigurator(config, system.dispatchers().prerequisites()));
    }

    static void unregister(String key) {
        EXECUTORS.remove(key);
    }

    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
        return () -> new ExecutorFacade(executor);
    }
}
