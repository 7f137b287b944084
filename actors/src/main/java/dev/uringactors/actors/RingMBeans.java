package dev.uringactors.actors;

import dev.uringactors.actors.RingProtocol.Command;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The {@link RingMXBean}s of one extension: registered at its start, unregistered at its shutdown. */
final class RingMBeans {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> names = new ArrayList<>();

    /** Registers one bean per ring under {@code dev.uringactors:type=Ring,system=<instance>,ring=<i>}. */
    RingMBeans(String instance, List<ActorRef<Command>> rings, Duration timeout, Scheduler scheduler) {
        try {
            for (int i = 0; i < rings.size(); i++) {
                ObjectName name = new ObjectName("dev.uringactors:type=Ring,system=" + ObjectName.quote(instance)
                        + ",ring=" + i);
                server.registerMBean(new Bean(rings.get(i), timeout, scheduler), name);
                names.add(name);
            }
        } catch (JMException e) {
            unregister();
            throw new IllegalStateException("uring.jmx: " + e.getMessage(), e);
        }
    }

    void unregister() {
        for (ObjectName name : names) {
            try {
                server.unregisterMBean(name);
            } catch (JMException e) {
                // already gone
            }
        }
        names.clear();
    }

    /** One ring's bean: asks the ring for its counters, at most once per {@link #FRESH} for all attributes. */
    private static final class Bean implements RingMXBean {
        private static final long FRESH = TimeUnit.MILLISECONDS.toNanos(100);
        private final ActorRef<Command> ring;
        private final Duration timeout;
        private final Scheduler scheduler;
        private RingLoopStats last;
        private long lastAt;

        Bean(ActorRef<Command> ring, Duration timeout, Scheduler scheduler) {
            this.ring = ring;
            this.timeout = timeout;
            this.scheduler = scheduler;
        }

        private synchronized RingLoopStats stats() {
            long now = System.nanoTime();
            if (last == null || now - lastAt > FRESH) {
                try {
                    last = AskPattern.<Command, RingLoopStats>ask(ring, RingProtocol.GetStats::new, timeout,
                            scheduler).toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    lastAt = now;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while asking the ring for its counters", e);
                } catch (ExecutionException | TimeoutException e) {
                    throw new IllegalStateException("the ring did not give its counters: " + e, e);
                }
            }
            return last;
        }

        @Override
        public int getRing() {
            return stats().ring();
        }

        @Override
        public int getGeneration() {
            return stats().generation();
        }

        @Override
        public String getWaitStrategy() {
            return stats().waitStrategy();
        }

        @Override
        public long getEnters() {
            return stats().ringStats().enters();
        }

        @Override
        public long getSubmitted() {
            return stats().ringStats().submitted();
        }

        @Override
        public long getCompletions() {
            return stats().ringStats().completions();
        }

        @Override
        public long getOverflowFlushes() {
            return stats().ringStats().overflowFlushes();
        }

        @Override
        public long getDroppedCompletions() {
            return stats().ringStats().droppedCompletions();
        }

        @Override
        public long getWakeSignals() {
            return stats().wakeSignals();
        }

        @Override
        public long getTurns() {
            return stats().turns();
        }

        @Override
        public long getTasksRun() {
            return stats().tasksRun();
        }

        @Override
        public long getRequestsInFlight() {
            return stats().requestsInFlight();
        }

        @Override
        public int getBacklog() {
            return stats().backlog();
        }

        @Override
        public long getCpuTimeNanos() {
            return stats().cpuTimeNanos();
        }

        @Override
        public long getStuckTasks() {
            return stats().stuckTasks();
        }
    }
}
