package dev.uringactors.actors.internal.issue;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An op whose completion throws (a bug in one op) is answered with that exception and ends; nothing answers it
 * twice, and the ring serves on.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailingCompletionTest {
    private static final RuntimeException BUG = new IllegalStateException("a bug in the completion");

    private final ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString("uring.rings = 1")
            .withFallback(ConfigFactory.load()));

    @AfterAll
    void shutDown() {
        kit.shutdownTestKit();
    }

    @Test
    void aSingleShotOpIsAnsweredWithTheExceptionAndTheRingServesOn() throws Exception {
        ThrowingOp op = new ThrowingOp(Opcode.NOP, Sqe::prepNop);
        issue(op);
        ExecutionException e = assertThrows(ExecutionException.class, () -> TestRings.get(op.answer));
        assertSame(BUG, e.getCause());
        TestRings.get(op.released);
        assertEquals(1, op.completions.get());
        assertRingServes();
    }

    @Test
    void aMultishotOpIsAnsweredOnceAndEndsAndTheRingServesOn() throws Exception {
        int listener = Sockets.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16, false);
        try {
            InetSocketAddress address = Sockets.localAddress(listener);
            ThrowingOp accept = new ThrowingOp(Opcode.ACCEPT,
                    sqe -> sqe.prepMultishotAccept(listener, OpFlags.SOCK_CLOEXEC));
            issue(accept);
            try (Socket first = new Socket(address.getAddress(), address.getPort())) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> TestRings.get(accept.answer));
                assertSame(BUG, e.getCause());
                TestRings.get(accept.released); // the multishot accept was cancelled: its final completion came
            }
            try (Socket later = new Socket(address.getAddress(), address.getPort())) {
                assertRingServes(); // and the accept that failed takes no connection any more
            }
            assertEquals(1, accept.completions.get(), "completions handled after the failure");
            assertEquals(1, accept.failures.get(), "answers with a failure");
        } finally {
            Sockets.close(listener);
        }
    }

    private void issue(RingOp op) {
        RingLoop loop = Rings.get(kit.system()).loop(0);
        loop.execute(() -> loop.issuer().issue(op));
    }

    private void assertRingServes() throws Exception {
        TestRings.get(AskPattern.askWithStatus(UringFiles.get(kit.system()).ring(0), RingProtocol.Nop::new,
                Duration.ofSeconds(10), kit.system().scheduler()));
    }

    /** An op whose completion throws; it closes what an accept gives it, and says what happened to it. */
    private static final class ThrowingOp extends RingOp {
        final CompletableFuture<Void> answer = new CompletableFuture<>();
        final CompletableFuture<Void> released = new CompletableFuture<>();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        private final Opcode opcode;
        private final Prep prep;

        ThrowingOp(Opcode opcode, Prep prep) {
            this.opcode = opcode;
            this.prep = prep;
        }

        @Override
        protected Opcode opcode() {
            return opcode;
        }

        @Override
        protected void prepare(Sqe sqe) {
            prep.prepare(sqe);
        }

        @Override
        protected boolean complete(int res, int flags, int ringFlags) {
            completions.incrementAndGet();
            drained(res, flags);
            throw BUG;
        }

        @Override
        protected void fail(Throwable cause) {
            failures.incrementAndGet();
            answer.completeExceptionally(cause);
        }

        @Override
        protected void drained(int res, int flags) {
            if (opcode == Opcode.ACCEPT && res >= 0) {
                Sockets.close(res);
            }
        }

        @Override
        protected void release() {
            released.complete(null);
        }
    }
}
