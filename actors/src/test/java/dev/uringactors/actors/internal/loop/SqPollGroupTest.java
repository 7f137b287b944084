package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.SqPollStats;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.ring.ProcessThreads;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.uringactors.actors.TestRings.awaitGeneration;
import static dev.uringactors.actors.TestRings.fault;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two rings sharing one SQPOLL thread: attaching after a restart, and the thread's figures. */
@ExtendWith(RequiresIoUring.class)
class SqPollGroupTest {
    private final ActorTestKit kit = TestRings.kit("uring { rings = 2, defer-taskrun = off, sqpoll { enabled = on, groups = 1, idle = 20ms } }");
    private final UringExtension uring = UringExtension.get(kit.system());

    @AfterEach
    void shutDown() {
        kit.shutdownTestKit();
    }

    /**
     * The ring that made the group's SQ thread fails and opens again: it attaches to the thread the other ring
     * keeps, so the process has no SQ thread more than before, and both rings serve.
     */
    @Test
    void aRestartedRingAttachesThroughAMemberOpenAtThatMomentAndTheOtherKeepsServing() throws Exception {
        assertTrue(nops(0, 10) && nops(1, 10), "both rings serve");
        long sqThreads = ProcessThreads.sqPollThreads(); // this kit's one, and any of kits still closing

        int generation = fault(kit.system(), 0, "injected");
        awaitGeneration(kit.system(), 0, generation + 1);

        for (int ring = 0; ring < 2; ring++) {
            assertTrue(nops(ring, 100), "ring " + ring + " serves");
        }
        assertTrue(ProcessThreads.sqPollThreads() <= sqThreads,
                "no SQ thread of its own: " + ProcessThreads.sqPollThreads() + " after, " + sqThreads + " before");
    }

    @Test
    void theSqThreadIsFoundAndItsCpuAndRingsAreReported() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        SqPollStats s;
        do {
            nops(0, 2000);
            nops(1, 2000);
            s = uring.sqPollStats().toCompletableFuture().get(5, TimeUnit.SECONDS).get(0);
        } while ((s.threadId() <= 0 || s.cpuShare() <= 0) && System.nanoTime() < deadline);
        assertTrue(s.threadId() > 0 && s.cpuShare() > 0, s.toString());
        assertEquals(List.of(0, 1), s.rings());
        assertEquals(-1, s.cpu());
        String name = Files.readString(Path.of("/proc/self/task/" + s.threadId() + "/comm")).trim();
        assertTrue(name.startsWith("iou-sqp"), "thread " + s.threadId() + " is " + name);
    }

    /** Sends {@code n} NOPs to a ring; whether every one succeeded. */
    private boolean nops(int ring, int n) {
        TestProbe<StatusReply<Done>> probe = kit.createTestProbe();
        for (int i = 0; i < n; i++) {
            UringFiles.get(kit.system()).ring(ring).tell(new RingProtocol.Nop(probe.getRef()));
        }
        boolean ok = true;
        for (int i = 0; i < n; i++) {
            ok &= probe.receiveMessage(Duration.ofSeconds(10)).isSuccess();
        }
        return ok;
    }

}
