package dev.uringactors.actors;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/** The {@link RingMXBean}s of one extension: registered at its start, unregistered at its shutdown. */
final class RingMBeans {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> names = new ArrayList<>();

    /** Registers one bean per ring under {@code dev.uringactors:type=Ring,system=<instance>,ring=<i>}. */
    RingMBeans(String instance, RingStatsSnapshots snapshots) {
        try {
            for (int i = 0; i < snapshots.rings(); i++) {
                ObjectName name = new ObjectName("dev.uringactors:type=Ring,system=" + ObjectName.quote(instance)
                        + ",ring=" + i);
                server.registerMBean(new Bean(snapshots, i), name);
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

    /** One ring's bean, over the snapshots: a client reading every attribute asks the ring once. */
    private record Bean(RingStatsSnapshots snapshots, int ring) implements RingMXBean {
        private RingLoopStats stats() {
            return snapshots.get(ring);
        }

        @Override
        public int getRing() {
            return ring;
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

        @Override
        public long getOpenConnections() {
            return stats().tcp().openConnections();
        }

        @Override
        public long getRecvBufferShortages() {
            return stats().tcp().recvBufferShortages();
        }

        @Override
        public long getWritesRefused() {
            return stats().tcp().writesRefused();
        }

        @Override
        public long getAcceptBackoffs() {
            return stats().tcp().acceptBackoffs();
        }
    }
}
