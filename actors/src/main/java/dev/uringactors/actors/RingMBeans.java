package dev.uringactors.actors;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.ReflectionException;
import javax.management.StandardMBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * One MBean per ring with {@code uring.jmx = on}, named {@code dev.uringactors:type=Ring,system=<actor
 * system>-<n>,ring=<i>}: its attributes are the ring's index ({@code Ring}), its wait strategy
 * ({@code WaitStrategy}) and the {@link RingFigure}s, read on the ring's thread; a JMX client that reads several at
 * once sees one snapshot. Beside them, {@code dev.uringactors:type=Backend,system=<...>} ({@link BackendMXBean}) says
 * which backend runs. Registered at the extension's start, unregistered at its shutdown.
 */
final class RingMBeans {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> names = new ArrayList<>();

    /**
     * Registers the backend's bean, and one bean per ring under
     * {@code dev.uringactors:type=Ring,system=<instance>,ring=<i>}.
     */
    RingMBeans(String instance, BackendChoice backend, RingStatsSnapshots snapshots) {
        try {
            ObjectName backendName = new ObjectName("dev.uringactors:type=Backend,system="
                    + ObjectName.quote(instance));
            server.registerMBean(new StandardMBean(new BackendBean(backend), BackendMXBean.class, true),
                    backendName);
            names.add(backendName);
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

    /** The backend and why, fixed at start. */
    private record BackendBean(BackendChoice choice) implements BackendMXBean {
        @Override
        public String getBackend() {
            return choice.backend().settingValue();
        }

        @Override
        public String getReason() {
            return choice.reason();
        }
    }

    /**
     * One ring's bean, over the snapshots (a client reading every attribute asks the ring once): the ring's index,
     * its wait strategy, and an attribute per {@link RingFigure}.
     */
    private record Bean(RingStatsSnapshots snapshots, int ring) implements DynamicMBean {
        private static final String RING = "Ring";
        private static final String WAIT_STRATEGY = "WaitStrategy";
        private static final MBeanInfo INFO = info();

        private static MBeanInfo info() {
            List<MBeanAttributeInfo> attributes = new ArrayList<>();
            attributes.add(new MBeanAttributeInfo(RING, "int", "the ring's index in the extension", true, false,
                    false));
            attributes.add(new MBeanAttributeInfo(WAIT_STRATEGY, String.class.getName(),
                    "how the ring thread waits: interrupt, classic or hybrid", true, false, false));
            for (RingFigure figure : RingFigure.ALL) {
                attributes.add(new MBeanAttributeInfo(figure.attribute(), "long", figure.description(), true, false,
                        false));
            }
            return new MBeanInfo(Bean.class.getName(), "one ring's counters (uring.jmx)",
                    attributes.toArray(MBeanAttributeInfo[]::new), null, null, null);
        }

        @Override
        public Object getAttribute(String name) throws AttributeNotFoundException {
            if (name.equals(RING)) {
                return ring;
            }
            RingLoopStats stats = snapshots.get(ring);
            if (name.equals(WAIT_STRATEGY)) {
                return stats.waitStrategy();
            }
            for (RingFigure figure : RingFigure.ALL) {
                if (figure.attribute().equals(name)) {
                    return figure.value().applyAsLong(stats);
                }
            }
            throw new AttributeNotFoundException(name);
        }

        @Override
        public AttributeList getAttributes(String[] names) {
            AttributeList values = new AttributeList();
            for (String name : names) {
                try {
                    values.add(new Attribute(name, getAttribute(name)));
                } catch (AttributeNotFoundException e) {
                    // as JMX has it: an unknown name is left out
                }
            }
            return values;
        }

        @Override
        public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
            throw new AttributeNotFoundException(attribute.getName() + " is read-only");
        }

        @Override
        public AttributeList setAttributes(AttributeList attributes) {
            return new AttributeList(); // none is writable
        }

        @Override
        public Object invoke(String action, Object[] params, String[] signature) throws ReflectionException {
            throw new ReflectionException(new NoSuchMethodException(action), "the bean has no operations");
        }

        @Override
        public MBeanInfo getMBeanInfo() {
            return INFO;
        }
    }
}
