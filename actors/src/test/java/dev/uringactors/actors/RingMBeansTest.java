package dev.uringactors.actors;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import javax.management.AttributeList;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rings' counters over JMX: one bean per ring while the system runs, moving with the work, gone after. */
@ExtendWith(RequiresIoUring.class)
class RingMBeansTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private static Set<ObjectName> beansOf(String systemName) throws Exception {
        return SERVER.queryNames(new ObjectName("dev.uringactors:type=Ring,system=\"" + systemName + "-*\",*"),
                null);
    }

    @Test
    void eachRingHasABeanWhoseCountersMoveAndWhichGoesWithTheSystem() throws Exception {
        ActorTestKit kit = ActorTestKit.create("jmx-test", ConfigFactory.parseString("uring { rings = 2, jmx = on }")
                .withFallback(ConfigFactory.load()));
        try {
            UringExtension uring = UringExtension.get(kit.system());
            Set<ObjectName> beans = beansOf("jmx-test");
            assertEquals(2, beans.size(), beans.toString());
            ObjectName ring0 = beans.stream().filter(n -> n.getKeyProperty("ring").equals("0")).findFirst()
                    .orElseThrow();
            assertEquals(1L, SERVER.getAttribute(ring0, "Generation"));
            assertEquals(0, SERVER.getAttribute(ring0, "Ring"));
            assertEquals("interrupt", SERVER.getAttribute(ring0, "WaitStrategy"));
            long before = (Long) SERVER.getAttribute(ring0, "Completions");
            TestProbe<StatusReply<Done>> probe = kit.createTestProbe();
            for (int i = 0; i < 100; i++) {
                UringFiles.get(kit.system()).ring(0).tell(new RingProtocol.Nop(probe.getRef()));
            }
            for (int i = 0; i < 100; i++) {
                assertTrue(probe.receiveMessage(Duration.ofSeconds(5)).isSuccess());
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            long after = before;
            while (after < before + 100 && System.nanoTime() < deadline) {
                after = (Long) SERVER.getAttribute(ring0, "Completions"); // a snapshot lives 100 ms
            }
            assertTrue(after >= before + 100, "completions " + before + " -> " + after);
        } finally {
            kit.shutdownTestKit();
        }
        assertTrue(beansOf("jmx-test").isEmpty(), "unregistered at shutdown");
    }

    @Test
    void theAttributesAreTheRingFiguresEachReadable() throws Exception {
        ActorTestKit kit = ActorTestKit.create("jmx-figures-test", ConfigFactory.parseString(
                "uring { rings = 1, jmx = on }").withFallback(ConfigFactory.load()));
        try {
            UringExtension.get(kit.system());
            ObjectName ring0 = beansOf("jmx-figures-test").iterator().next();
            List<String> names = Arrays.stream(SERVER.getMBeanInfo(ring0).getAttributes())
                    .map(MBeanAttributeInfo::getName).toList();
            List<String> expected = new ArrayList<>(List.of("Ring", "WaitStrategy"));
            RingFigure.ALL.forEach(f -> expected.add(f.attribute()));
            assertEquals(expected, names);
            AttributeList values = SERVER.getAttributes(ring0, names.toArray(String[]::new));
            assertEquals(names.size(), values.size(), "every attribute is read: " + values);
            for (RingFigure figure : RingFigure.ALL) {
                assertInstanceOf(Long.class, SERVER.getAttribute(ring0, figure.attribute()), figure.attribute());
            }
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void noBeanUnlessAskedFor() throws Exception {
        ActorTestKit kit = ActorTestKit.create("no-jmx-test", ConfigFactory.parseString("uring.rings = 1")
                .withFallback(ConfigFactory.load()));
        try {
            UringExtension.get(kit.system());
            assertTrue(beansOf("no-jmx-test").isEmpty());
        } finally {
            kit.shutdownTestKit();
        }
    }
}
