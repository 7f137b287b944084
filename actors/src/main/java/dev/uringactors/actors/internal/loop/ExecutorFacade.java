package dev.uringactors.actors.internal.loop;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * What Pekko sees of the rings' dispatchers: execute goes to the rings' executor; shutdown only marks this facade,
 * as the loops' life belongs to the {@code UringExtension}, not to Pekko (which builds executors lazily, may shut
 * one down when no actor uses the dispatcher and later build another).
 */
final class ExecutorFacade extends AbstractExecutorService {
    private final Executor target;
    private volatile boolean shutdown;

    ExecutorFacade(Executor target) {
        this.target = target;
    }

    @Override
    public void execute(Runnable command) {
        target.execute(command);
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
