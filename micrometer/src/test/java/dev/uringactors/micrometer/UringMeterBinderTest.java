package dev.uringactors.micrometer;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.RingFigure;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.RequiresIoUring;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The binder's meters: one set per ring, and they move with the ring's work. */
@ExtendWith(RequiresIoUring.class)
class UringMeterBinderTest {
    @Test
    void eachRingsMetersMoveUnderLoad() {
        ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString("uring.rings = 2")
                .withFallback(ConfigFactory.load()));
        try {
            UringExtension uring = UringExtension.get(kit.system());
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new UringMeterBinder(uring).bindTo(registry);
            assertEquals(2, registry.find("uring.ring.completions").functionCounters().size());
            double before = registry.get("uring.ring.completions").tag("ring", "1").functionCounter().count();
            assertEquals(1.0, registry.get("uring.ring.generation").tag("ring", "1").gauge().value());

            TestProbe<StatusReply<Done>> probe = kit.createTestProbe();
            for (int i = 0; i < 500; i++) {
                UringFiles.get(kit.system()).ring(1).tell(new RingProtocol.Nop(probe.getRef()));
            }
            for (int i = 0; i < 500; i++) {
                assertTrue(probe.receiveMessage(Duration.ofSeconds(5)).isSuccess());
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            double after = before;
            while (after < before + 500 && System.nanoTime() < deadline) {
                after = registry.get("uring.ring.completions").tag("ring", "1").functionCounter().count();
            }
            assertTrue(after >= before + 500, "completions " + before + " -> " + after + " (snapshots live 1 s)");
            assertTrue(registry.get("uring.ring.sqes").tag("ring", "1").functionCounter().count() >= 500);
            assertTrue(registry.get("uring.ring.cpu").tag("ring", "1").functionCounter().count() > 0);
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void everyRingFigureIsAMeterOfEachRing() {
        ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString("uring.rings = 2")
                .withFallback(ConfigFactory.load()));
        try {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new UringMeterBinder(UringExtension.get(kit.system())).bindTo(registry);
            for (RingFigure figure : RingFigure.ALL) {
                for (String ring : List.of("0", "1")) {
                    Meter meter = registry.get(figure.meter()).tag("ring", ring).meter();
                    assertEquals(figure.kind() == RingFigure.Kind.LEVEL ? Meter.Type.GAUGE : Meter.Type.COUNTER,
                            meter.getId().getType(), figure.meter());
                    assertEquals(figure.description(), meter.getId().getDescription());
                }
            }
            assertEquals(1.0, registry.get("uring.backend").tag("backend", "io-uring").gauge().value());
            assertEquals(2 * RingFigure.ALL.size() + 1, registry.getMeters().size(),
                    "no meter besides the figures and the backend");
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void underTheJdkBackendTheOnlyMeterSaysSo() {
        ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString("uring { backend = jdk, rings = 2 }")
                .withFallback(ConfigFactory.load()));
        try {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new UringMeterBinder(UringExtension.get(kit.system())).bindTo(registry);
            assertEquals(1.0, registry.get("uring.backend").tag("backend", "jdk").gauge().value());
            assertEquals(1, registry.getMeters().size(), "no ring to count: " + registry.getMeters());
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void theSqThreadsCpuIsAGaugeThatMovesUnderLoad() {
        ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString(
                "uring { rings = 2, defer-taskrun = off, sqpoll { enabled = on, idle = 20ms } }")
                .withFallback(ConfigFactory.load()));
        try {
            UringExtension uring = UringExtension.get(kit.system());
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new UringMeterBinder(uring).bindTo(registry);
            TestProbe<StatusReply<Done>> probe = kit.createTestProbe();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            double share = 0;
            while (!(share > 0) && System.nanoTime() < deadline) {
                for (int i = 0; i < 2000; i++) {
                    UringFiles.get(kit.system()).ring(i % 2).tell(new RingProtocol.Nop(probe.getRef()));
                }
                for (int i = 0; i < 2000; i++) {
                    probe.receiveMessage(Duration.ofSeconds(5));
                }
                share = registry.get("uring.sqpoll.cpu.share").tag("group", "0").gauge().value();
            }
            assertTrue(share > 0, "the SQ thread's CPU share: " + share);
            assertEquals(2, registry.find("uring.ring.sq.wakeups").functionCounters().size());
        } finally {
            kit.shutdownTestKit();
        }
    }
}
