package dev.uringactors.actors;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.SeccompFilter;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code uring.backend}: decided once at start; under jdk no ring or ring thread exists and the ring API still
 * answers. (Where the kernel refuses io_uring, auto falls back: the samples' refused-io_uring test shows it in a
 * child JVM under a seccomp filter.)
 */
class BackendTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    /** The live ring threads, as a set: an earlier test's may end meanwhile, so a count proves nothing. */
    private static Set<Thread> ringThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("uring-ring-"))
                .filter(Thread::isAlive).collect(Collectors.toSet());
    }

    @Test
    void jdkOpensNoRingAndKeepsTheRingApiCallable() throws Exception {
        Set<Thread> threadsBefore = ringThreads();
        ActorTestKit kit = ActorTestKit.create("backend-jdk", ConfigFactory.parseString(
                "uring { backend = jdk, rings = 3, jmx = on }").withFallback(ConfigFactory.load()));
        try {
            UringExtension uring = UringExtension.get(kit.system());
            assertEquals(Backend.JDK, uring.backend());
            assertEquals("uring.backend = jdk", uring.backendReason());
            Set<Thread> started = ringThreads();
            started.removeAll(threadsBefore);
            assertEquals(Set.of(), started, "no ring thread started");
            assertEquals(3, uring.ringCount(), "the configured count");
            for (int i = 0; i < 3; i++) {
                assertEquals(DispatcherSelector.fromConfig("pekko.actor.default-dispatcher"), uring.dispatcher(i));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> uring.dispatcher(3));
            int ring = uring.nextRing();
            assertTrue(ring >= 0 && ring < 3, "a ring index: " + ring);
            assertTrue(TestRings.get(uring.stats()).isEmpty(), "no ring to count");
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> IoBackends.rings(kit.system()).loop(0));
            assertTrue(e.getMessage().contains("uring.backend = jdk"), e.getMessage());
            CompletableFuture<?> oneRing = uring.stats(0).toCompletableFuture(); // fails, does not throw
            ExecutionException failed = assertThrows(ExecutionException.class, oneRing::get);
            assertTrue(failed.getCause() instanceof IllegalStateException, failed.getCause().toString());
            assertEquals(e.getMessage(), failed.getCause().getMessage());
            Set<ObjectName> beans = SERVER.queryNames(new ObjectName("dev.uringactors:system=\"backend-jdk-*\",*"),
                    null);
            assertEquals(1, beans.size(), "the Backend bean only: " + beans);
            ObjectName bean = beans.iterator().next();
            assertEquals("Backend", bean.getKeyProperty("type"));
            assertEquals("jdk", SERVER.getAttribute(bean, "Backend"));
            assertEquals("uring.backend = jdk", SERVER.getAttribute(bean, "Reason"));
        } finally {
            kit.shutdownTestKit();
        }
        assertTrue(SERVER.queryNames(new ObjectName("dev.uringactors:system=\"backend-jdk-*\",*"), null).isEmpty(),
                "the bean goes with the system");
    }

    @Test
    @ExtendWith(RequiresIoUring.class)
    void autoChoosesIoUringWhereTheKernelTakesTheConfiguredRing() {
        BackendChoice choice = BackendChoice.probe(UringSettings.from(ConfigFactory.load()));
        assertEquals(Backend.IO_URING, choice.backend(), choice.reason());
        assertTrue(choice.reason().startsWith("uring.backend = auto: "), choice.reason());
        ActorTestKit kit = TestRings.kit("uring { backend = auto, rings = 1 }");
        try {
            assertEquals(Backend.IO_URING, UringExtension.get(kit.system()).backend());
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void autoFallsBackWithTheKernelsReasonWhereIoUringIsRefused() throws Exception {
        // A thread of its own under a seccomp filter that answers io_uring_setup with EPERM, as Docker's default
        // profile does; the filter stays with that thread (and none is started from it).
        CompletableFuture<Object> choiceOrWhyNot = new CompletableFuture<>();
        Thread refused = new Thread(() -> {
            try {
                UringSettings settings = UringSettings.from(ConfigFactory.load());
                String whyNot = SeccompFilter.refuseOnThisThread(Errno.EPERM, SeccompFilter.IO_URING_SETUP);
                choiceOrWhyNot.complete(whyNot != null ? whyNot : BackendChoice.probe(settings));
            } catch (Throwable e) {
                choiceOrWhyNot.completeExceptionally(e);
            }
        });
        refused.start();
        Object answer = TestRings.get(choiceOrWhyNot);
        assumeTrue(answer instanceof BackendChoice, () -> "no seccomp filter here: " + answer);
        BackendChoice c = (BackendChoice) answer;
        assertEquals(Backend.JDK, c.backend(), c.reason());
        assertTrue(c.reason().startsWith("uring.backend = auto: io_uring_setup: EPERM"), c.reason());
        assertTrue(c.reason().contains("seccomp"), "the hint names the usual causes: " + c.reason());
        assertEquals(Backend.IO_URING, BackendChoice.probe(UringSettings.from(ConfigFactory.load())).backend(),
                "other threads are not affected");
    }

    @Test
    void aBadBackendFailsTheStartNamingTheKey() {
        ConfigException.BadValue e = assertThrows(ConfigException.BadValue.class, () -> UringSettings.from(
                ConfigFactory.parseString("uring.backend = epoll").withFallback(ConfigFactory.defaultReference())
                        .resolve()));
        assertTrue(e.getMessage().contains("uring.backend") && e.getMessage().contains("auto | io-uring | jdk"),
                e.getMessage());
        assertFalse(e.getMessage().contains("uring.backend = jdk"));
    }
}
