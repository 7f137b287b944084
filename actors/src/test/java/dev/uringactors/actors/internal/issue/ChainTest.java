package dev.uringactors.actors.internal.issue;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.SqeFlags;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Chains on a real ring: the steps of one submission run in order, a failing step cancels the ones linked behind
 * it, a hard link does not, a step whose success posts nothing is not waited for, and whatever happens the op is
 * answered once and its slot goes back after its last step. A ring of 8 SQEs shows that a chain is never split.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChainTest {
    private static final int BAD_FD = 1 << 20;

    private final ActorTestKit kit = TestRings.kit("uring.rings = 1\nuring.sq-entries = 8");
    private final IssuerProbe rings = new IssuerProbe(kit);

    @AfterAll
    void shutDown() {
        kit.shutdownTestKit();
    }

    @Test
    void theStepsRunInOrderAndTheChainAnswersOnceAtItsLast() throws Exception {
        long before = rings.requestsInFlight();
        TestChain chain = new TestChain(nop(), nop(), nop());
        assertEquals(List.of("0:0", "1:0", "2:0"), TestRings.get(issued(chain)));
        rings.awaitRequestsInFlight(before);
        assertEquals(1, chain.answers.get());
    }

    @Test
    void aFailingStepCancelsTheStepsLinkedBehindIt() throws Exception {
        long before = rings.requestsInFlight();
        TestChain chain = new TestChain(nop(), readBadFd(), nop(), nop());
        assertEquals(List.of("0:0", "1:" + -Errno.EBADF, "2:" + -Errno.ECANCELED, "3:" + -Errno.ECANCELED),
                TestRings.get(issued(chain)));
        rings.awaitRequestsInFlight(before);
        assertEquals(1, chain.answers.get());
    }

    @Test
    void aShortReadCancelsTheStepsLinkedBehindIt(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("small"), new byte[4096]);
        try (NativeBuffer path = NativeBuffer.ofString(file.toString());
             NativeBuffer buffer = NativeBuffer.allocate(8192)) {
            String opened = TestRings.get(issued(new TestChain(step(Opcode.OPENAT,
                    sqe -> sqe.prepOpenat(OpFlags.AT_FDCWD, path.address(), OpFlags.O_RDONLY, 0))))).get(0);
            int fd = Integer.parseInt(opened.substring(2));
            try {
                TestChain chain = new TestChain(
                        step(Opcode.READ, sqe -> sqe.prepRead(fd, buffer.address(), 8192, 0)), nop());
                assertEquals(List.of("0:4096", "1:" + -Errno.ECANCELED), TestRings.get(issued(chain)),
                        "a read shorter than asked fails the link: a send linked behind it must not send what it "
                                + "did not read");
            } finally {
                Descriptors.close(fd);
            }
        }
    }

    @Test
    void aHardLinkRunsTheNextStepWhateverTheResult() throws Exception {
        TestChain chain = new TestChain(readBadFd().linked(SqeFlags.IO_HARDLINK), nop());
        assertEquals(List.of("0:" + -Errno.EBADF, "1:0"), TestRings.get(issued(chain)));
    }

    @Test
    void stepsThatSkipTheirSuccessPostNothingAndTheChainStillEnds() throws Exception {
        long before = rings.requestsInFlight();
        int skip = SqeFlags.IO_LINK | SqeFlags.CQE_SKIP_SUCCESS;
        TestChain chain = new TestChain(nop().linked(skip), nop().linked(skip), nop());
        assertEquals(List.of("2:0"), TestRings.get(issued(chain)));
        rings.awaitRequestsInFlight(before);
        TestChain failing = new TestChain(nop().linked(skip), readBadFd().linked(skip), nop());
        assertEquals(List.of("1:" + -Errno.EBADF), TestRings.get(issued(failing)),
                "a step that skips its success posts its failure, and the steps behind it are cancelled silently");
        rings.awaitRequestsInFlight(before);
    }

    @Test
    void aChainIsNeverSplitByTheEndOfTheSq() throws Exception {
        for (int lone = 0; lone < 8; lone++) { // puts the chain at every place in the SQ of 8
            List<CompletableFuture<List<String>>> nops = new ArrayList<>();
            CompletableFuture<List<String>> chained = new CompletableFuture<>();
            int count = lone;
            RingLoop loop = rings.loop();
            loop.execute(() -> {
                for (int i = 0; i < count; i++) {
                    TestChain single = new TestChain(nop());
                    nops.add(single.answer);
                    loop.issuer().issue(single);
                }
                TestChain chain = new TestChain(readBadFd(), nop(), nop());
                chain.answer.whenComplete((steps, e) -> chained.complete(steps));
                loop.issuer().issue(chain);
            });
            assertEquals(List.of("0:" + -Errno.EBADF, "1:" + -Errno.ECANCELED, "2:" + -Errno.ECANCELED),
                    TestRings.get(chained), "after " + lone + " lone NOPs");
        }
    }

    @Test
    void aChainLongerThanTheSqIsRefused() throws Exception {
        long before = rings.requestsInFlight();
        Step[] steps = new Step[9];
        Arrays.fill(steps, nop());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> TestRings.get(issued(new TestChain(steps))));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        rings.awaitRequestsInFlight(before);
        rings.assertRingServes();
    }

    @Test
    void aStepThatCannotBePreparedFailsTheChainOnceAndItsSlotGoesBack() throws Exception {
        long before = rings.requestsInFlight();
        RuntimeException bug = new IllegalStateException("cannot prepare");
        TestChain chain = new TestChain(nop(), step(Opcode.NOP, sqe -> {
            throw bug;
        }), nop());
        ExecutionException e = assertThrows(ExecutionException.class, () -> TestRings.get(issued(chain)));
        assertSame(bug, e.getCause());
        rings.awaitRequestsInFlight(before); // the NOPs that took the SQEs completed, and the slot went back
        assertEquals(1, chain.answers.get());
        rings.assertRingServes();
    }

    private CompletableFuture<List<String>> issued(TestChain chain) {
        rings.issue(chain);
        return chain.answer;
    }

    private static Step nop() {
        return step(Opcode.NOP, Sqe::prepNop);
    }

    private static Step readBadFd() {
        return step(Opcode.READ, sqe -> sqe.prepRead(BAD_FD, 0, 0, 0));
    }

    private static Step step(Opcode opcode, RingOp.Prep prep) {
        return new Step(opcode, prep, SqeFlags.IO_LINK);
    }

    /** One step of a test chain: its op, and the flags it links to the next with. */
    private record Step(Opcode opcode, RingOp.Prep prep, int link) {
        Step linked(int flags) {
            return new Step(opcode, prep, flags);
        }
    }

    /** A chain that answers with the completions of its steps, "step:res", in the order they came. */
    private static final class TestChain extends RingOp {
        private final Step[] steps;
        private final List<String> completions = new ArrayList<>();
        final CompletableFuture<List<String>> answer = new CompletableFuture<>();
        final AtomicInteger answers = new AtomicInteger();

        TestChain(Step... steps) {
            this.steps = steps;
        }

        @Override
        protected Opcode opcode() {
            return steps[0].opcode();
        }

        @Override
        protected int chainLength() {
            return steps.length;
        }

        @Override
        protected void prepare(Sqe sqe) {
            throw new AssertionError("a chain's steps are prepared one by one");
        }

        @Override
        protected void prepare(Sqe sqe, int step) {
            steps[step].prep().prepare(sqe);
        }

        @Override
        protected int link(int step) {
            return steps[step].link();
        }

        @Override
        protected boolean complete(int res, int flags, int ringFlags) {
            throw new AssertionError("a chain's completions come by step");
        }

        @Override
        protected boolean complete(int step, int res, int flags, int ringFlags) {
            completions.add(step + ":" + res);
            if (endsSubmission()) {
                answers.incrementAndGet();
                answer.complete(List.copyOf(completions));
                markAnswered();
            }
            return true;
        }

        @Override
        protected void fail(Throwable cause) {
            answers.incrementAndGet();
            answer.completeExceptionally(cause);
        }
    }





}
