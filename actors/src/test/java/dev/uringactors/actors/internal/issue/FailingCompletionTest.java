package dev.uringactors.actors.internal.issue;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.Sqe;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An op whose completion throws (a bug in one op) is answered with that exception and ends; nothing answers it
 * twice, and the ring serves on. An op issued again while it is in flight is refused.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailingCompletionTest {
    private static final RuntimeException BUG = new IllegalStateException("a bug in the completion");

    private final ActorTestKit kit = TestRings.kit("uring.rings = 1");
    private final IssuerProbe rings = new IssuerProbe(kit);

    @AfterAll
    void shutDown() {
        kit.shutdownTestKit();
    }

    @Test
    void aSingleShotOpIsAnsweredWithTheExceptionAndTheRingServesOn() throws Exception {
        ThrowingOutcome outcome = new ThrowingOutcome();
        TrackedOp nop = new TrackedOp(Opcode.NOP, Sqe::prepNop, outcome);
        long before = rings.requestsInFlight();
        rings.issue(nop);
        ExecutionException e = assertThrows(ExecutionException.class, () -> TestRings.get(outcome.answer));
        assertSame(BUG, e.getCause());
        rings.awaitRequestsInFlight(before); // its slot, and the buffer lent to it, went back
        assertEquals(1, outcome.completions.get());
        rings.assertRingServes();
    }

    @Test
    void aMultishotOpIsAnsweredOnceAndEndsAndTheRingServesOn() throws Exception {
        int listener = Sockets.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16, false);
        try {
            InetSocketAddress address = Sockets.localAddress(listener);
            ThrowingOutcome outcome = new ThrowingOutcome();
            TrackedOp accept = new TrackedOp(Opcode.ACCEPT,
                    sqe -> sqe.prepMultishotAccept(listener, OpFlags.SOCK_CLOEXEC), outcome);
            long before = rings.requestsInFlight();
            rings.issue(accept);
            try (Socket first = new Socket(address.getAddress(), address.getPort())) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> TestRings.get(outcome.answer));
                assertSame(BUG, e.getCause());
                rings.awaitRequestsInFlight(before); // the multishot accept was cancelled: its final completion came
            }
            try (Socket later = new Socket(address.getAddress(), address.getPort())) {
                rings.assertRingServes(); // and the accept that failed takes no connection any more
            }
            assertEquals(1, outcome.completions.get(), "completions handled, none after the failure");
            assertEquals(1, outcome.failures.get(), "answers with a failure");
        } finally {
            Descriptors.close(listener);
        }
    }

    @Test
    void anOpIssuedAgainBeforeItsFinalCompletionIsRefused() throws Exception {
        int listener = Sockets.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16, false);
        try {
            TrackedOp accept = new TrackedOp(Opcode.ACCEPT,
                    sqe -> sqe.prepMultishotAccept(listener, OpFlags.SOCK_CLOEXEC), SimpleOp.Outcome.IGNORED);
            long before = rings.requestsInFlight();
            CompletableFuture<Throwable> again = new CompletableFuture<>();
            RingLoop loop = rings.loop();
            loop.execute(() -> {
                loop.issuer().issue(accept); // in flight until cancelled: a multishot accept
                try {
                    loop.issuer().issue(accept);
                    again.complete(null);
                } catch (IllegalStateException e) {
                    again.complete(e);
                }
                loop.issuer().issue(SimpleOp.cancel(accept.userData()));
            });
            Throwable refused = TestRings.get(again);
            assertInstanceOf(IllegalStateException.class, refused, "the second issue of the op in flight");
            rings.awaitRequestsInFlight(before); // the one in flight was cancelled, and ended
        } finally {
            Descriptors.close(listener);
        }
    }






    /** Throws at each completion, as a bug would, after closing the fd an accept gave it; says what reached it. */
    private static final class ThrowingOutcome implements SimpleOp.Outcome {
        final CompletableFuture<Void> answer = new CompletableFuture<>();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();

        @Override
        public void completed(int res, int ringFlags) {
            completions.incrementAndGet();
            TrackedOp.closeAccepted(res);
            throw BUG;
        }

        @Override
        public void failed(Throwable cause) {
            failures.incrementAndGet();
            answer.completeExceptionally(cause);
        }
    }

    /** A simple op that closes what an accept still brings after its failure. */
    private static final class TrackedOp extends SimpleOp {
        private final Opcode opcode;

        TrackedOp(Opcode opcode, Prep prep, Outcome outcome) {
            super(opcode, Admission.EXEMPT, prep, outcome);
            this.opcode = opcode;
        }

        static void closeAccepted(int res) {
            if (res > 0) {
                Descriptors.close(res);
            }
        }

        @Override
        protected void drained(int res, int flags) {
            if (opcode == Opcode.ACCEPT) {
                closeAccepted(res);
            }
        }
    }
}
