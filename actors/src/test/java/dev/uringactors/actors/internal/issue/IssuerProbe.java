package dev.uringactors.actors.internal.issue;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.internal.loop.RingLoop;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Ring 0's issuer as a test sees it: ops issued on the ring's thread, and its requests in flight read there. */
final class IssuerProbe {
    private final ActorTestKit kit;

    IssuerProbe(ActorTestKit kit) {
        this.kit = kit;
    }

    RingLoop loop() {
        return IoBackends.rings(kit.system()).loop(0);
    }

    void issue(RingOp op) {
        RingLoop loop = loop();
        loop.execute(() -> loop.issuer().issue(op));
    }

    /** The requests in the kernel or about to be, read on the ring's thread. */
    long requestsInFlight() throws Exception {
        CompletableFuture<Long> count = new CompletableFuture<>();
        RingLoop loop = loop();
        loop.execute(() -> count.complete(loop.issuer().requestsInFlight()));
        return TestRings.get(count);
    }

    void awaitRequestsInFlight(long expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        long now = requestsInFlight();
        while (now != expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
            now = requestsInFlight();
        }
        assertEquals(expected, now, "requests in flight on the ring");
    }

    /** A NOP through the ring's file actor is answered: the ring serves. */
    void assertRingServes() throws Exception {
        TestRings.get(AskPattern.askWithStatus(UringFiles.get(kit.system()).ring(0), RingProtocol.Nop::new,
                Duration.ofSeconds(10), kit.system().scheduler()));
    }
}
