package dev.uringactors.bench;

import com.sun.tools.attach.VirtualMachine;

import javax.management.Attribute;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rings' own counters in a sample's JVM, summed over its rings: SQEs the kernel took, io_uring_enter calls,
 * CQEs reaped, turns of the ring loops and tasks they ran (actor mailboxes, stream stages: a mailbox run may take
 * several messages). Read over JMX ({@code uring.jmx = on}, the library's beans), through a local management
 * agent that the attach API starts in that JVM once.
 */
final class RingCounters {
    private static final String[] FIGURES = {"Submitted", "Enters", "Completions", "Turns", "TasksRun"};
    private static final Map<Long, MBeanServerConnection> CONNECTIONS = new ConcurrentHashMap<>();

    /** The counters at one moment; all 0 for a JVM with no ring beans (the JDK backend, or uring.jmx off). */
    record Totals(long sqes, long enters, long completions, long turns, long tasks) {
        Totals minus(Totals before) {
            return new Totals(sqes - before.sqes, enters - before.enters, completions - before.completions,
                    turns - before.turns, tasks - before.tasks);
        }
    }

    private RingCounters() {
    }

    /** The counters of the JVM {@code pid} now, or null when they cannot be read (no attach, no JMX). */
    static Totals ofOrNone(long pid) {
        try {
            return of(pid);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The counters of the JVM {@code pid} now. */
    static Totals of(long pid) throws IOException {
        MBeanServerConnection beans = connection(pid);
        long[] sums = new long[FIGURES.length];
        try {
            for (ObjectName ring : beans.queryNames(new ObjectName("dev.uringactors:type=Ring,*"), null)) {
                List<Attribute> read = beans.getAttributes(ring, FIGURES).asList();
                for (Attribute figure : read) {
                    sums[List.of(FIGURES).indexOf(figure.getName())] += ((Number) figure.getValue()).longValue();
                }
            }
        } catch (JMException e) {
            throw new IOException("the ring beans of " + pid + ": " + e.getMessage(), e);
        }
        return new Totals(sums[0], sums[1], sums[2], sums[3], sums[4]);
    }

    private static MBeanServerConnection connection(long pid) throws IOException {
        MBeanServerConnection known = CONNECTIONS.get(pid);
        if (known != null) {
            return known;
        }
        String address;
        try {
            VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
        } catch (com.sun.tools.attach.AttachNotSupportedException e) {
            throw new IOException("cannot attach to " + pid + ": " + e.getMessage(), e);
        }
        MBeanServerConnection beans = JMXConnectorFactory.connect(new JMXServiceURL(address))
                .getMBeanServerConnection();
        CONNECTIONS.put(pid, beans);
        return beans;
    }
}
