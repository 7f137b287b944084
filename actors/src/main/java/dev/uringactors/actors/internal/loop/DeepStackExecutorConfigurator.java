package dev.uringactors.actors.internal.loop;

import com.typesafe.config.Config;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceFactory;
import org.apache.pekko.dispatch.MonitorableThreadFactory;
import org.apache.pekko.dispatch.ThreadPoolExecutorConfigurator;

import java.util.concurrent.ThreadFactory;

/**
 * A Pekko {@code thread-pool-executor} (set by the dispatcher's {@code thread-pool-executor} block) whose threads
 * have the ring threads' stack, {@code uring.dispatcher.thread-stack-size}: {@code executor = "<this class>"}.
 * Under the JDK backend it runs what the ring threads run under io_uring, {@code UringHttp}'s connections, whose
 * Pekko HTTP parser recurses once per request that a read brings. A thread pool: the JDK gives no fork-join
 * thread a stack size of its own.
 */
public final class DeepStackExecutorConfigurator extends ThreadPoolExecutorConfigurator {
    private final long stackSize;

    /** Made by Pekko for a dispatcher that names this class as its executor. */
    public DeepStackExecutorConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config.getConfig("thread-pool-executor"), prerequisites);
        this.stackSize = UringSettings.from(prerequisites.settings().config()).threadStackSize();
    }

    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
        // Named after the dispatcher as Pekko names its pools' threads, which it does only for its own factory.
        ThreadFactory named = threadFactory instanceof MonitorableThreadFactory m
                ? m.withName(m.name() + "-" + id) : threadFactory;
        return super.createExecutorServiceFactory(id, task -> {
            // Pekko's thread, never started, lends its name, daemon flag, class loader and uncaught-error handler
            // (which applies pekko.jvm-exit-on-fatal-error): a thread's stack size is fixed when it is made.
            Thread pekkos = named.newThread(task);
            Thread thread = new Thread(pekkos.getThreadGroup(), task, pekkos.getName(), stackSize);
            thread.setDaemon(pekkos.isDaemon());
            thread.setContextClassLoader(pekkos.getContextClassLoader());
            thread.setUncaughtExceptionHandler(pekkos.getUncaughtExceptionHandler());
            return thread;
        });
    }
}
