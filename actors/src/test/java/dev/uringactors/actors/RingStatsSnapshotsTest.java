package dev.uringactors.actors;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A reader of counters is never held up by a ring that cannot answer: it gets the last counters again. */
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
class RingStatsSnapshotsTest {
    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString(
            "uring { rings = 1, dispatcher.stuck-task-warning = 1h }")).build();

    @Test
    void aStuckRingGivesItsLastCountersWithinTheWait() throws Exception {
        UringExtension uring = UringExtension.get(testKit.system());
        RingStatsSnapshots snapshots = new RingStatsSnapshots(uring, Duration.ZERO);
        RingLoopStats fresh = snapshots.get(0);
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        testKit.spawn(Behaviors.setup(ctx -> {
            stuck.countDown();
            release.await(10, TimeUnit.SECONDS); // a handler that blocks its ring's thread
            return Behaviors.empty();
        }), "blocker", uring.dispatcher(0));
        try {
            assertTrue(stuck.await(5, TimeUnit.SECONDS));
            long start = System.nanoTime();
            assertSame(fresh, snapshots.get(0));
            long waited = System.nanoTime() - start;
            assertTrue(waited < RingStatsSnapshots.WAIT.toNanos() + 500_000_000L,
                    "waited " + waited / 1_000_000 + " ms");
        } finally {
            release.countDown();
        }
        assertTrue(snapshots.get(0) != fresh, "fresh counters once the ring answers again");
    }
}
