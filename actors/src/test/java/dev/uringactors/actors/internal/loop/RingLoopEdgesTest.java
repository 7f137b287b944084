package dev.uringactors.actors.internal.loop;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The loop at its edges: tasks handed over while it stops, wake-ups through an SQ that stays full. */
@ExtendWith(RequiresIoUring.class)
class RingLoopEdgesTest {
    /**
     * Tasks handed over while the ring closes still run, on the ring's thread; once the loop has ended, a task is
     * refused on the caller's thread. Every task does one or the other, and none runs anywhere else.
     */
    @Test
    void aTaskHandedOverAsTheLoopStopsRunsOnItsThreadOrIsRefusedToItsCaller() throws Exception {
        UringSettings settings = UringSettings.from(ConfigFactory.load());
        for (int round = 0; round < 20; round++) {
            RingLoop loop = new RingLoop(0, settings, null).start();
            AtomicLong ranOnRing = new AtomicLong();
            AtomicLong ranElsewhere = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            Runnable task = () -> (loop.inLoop() ? ranOnRing : ranElsewhere).incrementAndGet();
            int producers = 2;
            int each = 20_000;
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                Thread t = new Thread(() -> {
                    for (int i = 0; i < each; i++) {
                        try {
                            loop.execute(task);
                        } catch (RejectedExecutionException e) {
                            refused.incrementAndGet();
                        }
                    }
                });
                threads.add(t);
                t.start();
            }
            loop.stop().get(10, TimeUnit.SECONDS); // while they hand over tasks
            loop.end();
            for (Thread t : threads) {
                t.join(10_000);
            }
            loop.thread().join(10_000);
            assertEquals(0, ranElsewhere.get(), "round " + round + ": no task ran off the ring's thread");
            assertEquals((long) producers * each, ranOnRing.get() + refused.get(),
                    "round " + round + ": every task ran or was refused");
            RejectedExecutionException late = assertThrows(RejectedExecutionException.class,
                    () -> loop.execute(task), "a task after the end is refused");
            assertTrue(late.getMessage().contains("ring 0 is shut down"), late.getMessage());
        }
    }

    /** Between the ring's close and the loop's end, the actors still on it run on its thread, and are refused I/O. */
    @Test
    void afterTheRingClosesItsActorsStillRunOnItsThread() throws Exception {
        ActorTestKit testKit = TestRings.kit("uring.rings = 1");
        try {
            Rings rings = IoBackends.rings(testKit.system());
            TestRings.get(rings.shutdown());
            CompletableFuture<String> thread = new CompletableFuture<>();
            rings.loop(0).execute(() -> thread.complete(Thread.currentThread().getName()));
            assertEquals("uring-ring-0", thread.get(10, TimeUnit.SECONDS));
            TestRings.assertFailsWith(IllegalStateException.class, AskPattern.<RingProtocol.Command,
                    org.apache.pekko.pattern.StatusReply<Done>>ask(UringFiles.get(testKit.system()).ring(0),
                    RingProtocol.Nop::new, Duration.ofSeconds(10), testKit.system().scheduler())
                    .thenApply(org.apache.pekko.pattern.StatusReply::getValue));
        } finally {
            testKit.shutdownTestKit();
        }
    }

    /**
     * With SQPOLL the kernel consumes the SQ on its own thread, so a two-entry SQ can still be full right after a
     * submit. The eventfd read must then wait for room, not fail the ring, and every wake-up must still work.
     */
    @Test
    void wakeUpsKeepWorkingThroughAnSqThatStaysFull() throws Exception {
        ActorTestKit testKit = TestRings.kit("uring { rings = 1, sq-entries = 2, defer-taskrun = off, sqpoll { enabled = on, idle = 10ms } }");
        try {
            UringExtension uring = UringExtension.get(testKit.system());
            for (int batch = 0; batch < 200; batch++) {
                List<CompletableFuture<Done>> nops = new ArrayList<>();
                for (int i = 0; i < 50; i++) { // from this thread: each may wake the parked loop
                    nops.add(AskPattern.<RingProtocol.Command, org.apache.pekko.pattern.StatusReply<Done>>ask(
                                    UringFiles.get(testKit.system()).ring(0), RingProtocol.Nop::new,
                                    Duration.ofSeconds(10), testKit.system().scheduler())
                            .thenApply(org.apache.pekko.pattern.StatusReply::getValue).toCompletableFuture());
                }
                for (CompletableFuture<Done> nop : nops) {
                    assertEquals(Done.getInstance(), nop.get(10, TimeUnit.SECONDS), "batch " + batch);
                }
            }
        } finally {
            testKit.shutdownTestKit();
        }
    }

    @Test
    void aTaskThatRunsTooLongIsReportedOnceAndQuickOnesNever() throws Exception {
        ActorTestKit testKit = TestRings.kit("uring { rings = 1, dispatcher.stuck-task-warning = 100ms }");
        try {
            UringExtension uring = UringExtension.get(testKit.system());
            RingLoop loop = IoBackends.rings(testKit.system()).loop(0);
            var done = testKit.<Long>createTestProbe();
            var busy = testKit.spawn(org.apache.pekko.actor.typed.javadsl.Behaviors.<Long>receiveMessage(millis -> {
                // Not for the quick ones: Thread.sleep(0) yields the CPU, and a mailbox run of 64 yields held a
                // loaded machine's ring thread for more than 100 ms, a stuck task by the watchdog's measure.
                if (millis > 0) {
                    Thread.sleep(millis); // a handler that blocks, and so holds the ring thread
                }
                done.ref().tell(millis);
                return org.apache.pekko.actor.typed.javadsl.Behaviors.same();
            }), "busy", uring.dispatcher(0));
            for (int i = 0; i < 1000; i++) {
                busy.tell(0L); // quick ones
            }
            done.receiveSeveralMessages(1000, Duration.ofSeconds(10)); // they ran
            assertEquals(0, TestRings.stats(testKit.system(), 0).stuckTasks(), "quick tasks are no incident");
            busy.tell(2_000L);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (loop.stuckTasks() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(1, loop.stuckTasks(), "reported while it runs");
            assertEquals(1, TestRings.stats(testKit.system(), 0).stuckTasks(), "one report for one incident");
        } finally {
            testKit.shutdownTestKit();
        }
    }

    /**
     * An error that escapes Pekko's mailbox run (a StackOverflowError in a stream stage, say) stops the actor it came
     * from, whose state it left half-updated, so that its watchers hear of it; the ring and its other actors go on.
     */
    @Test
    void anActorWhoseMessageThrowsPastPekkoIsStoppedAndTheRingGoesOn() throws Exception {
        ActorTestKit testKit = TestRings.kit("uring.rings = 1");
        try {
            UringExtension uring = UringExtension.get(testKit.system());
            var broken = testKit.spawn(org.apache.pekko.actor.typed.javadsl.Behaviors.<String>receiveMessage(m -> {
                throw new StackOverflowError("thrown by the test"); // fatal to Pekko: no supervision sees it
            }), "broken", uring.dispatcher(0));
            var watcher = testKit.createTestProbe();
            broken.tell("boom");
            watcher.expectTerminated(broken, Duration.ofSeconds(10));
            TestRings.get(AskPattern.askWithStatus(UringFiles.get(testKit.system()).ring(0), RingProtocol.Nop::new,
                    Duration.ofSeconds(10), testKit.system().scheduler()));
        } finally {
            testKit.shutdownTestKit();
        }
    }
}
