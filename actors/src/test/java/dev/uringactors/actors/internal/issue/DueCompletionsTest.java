package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.wait.CompletionForecast;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** When polling should start: per kind of request, for the first one due. Plain code, no ring. */
class DueCompletionsTest {
    private final SlotTable slots = new SlotTable();

    /** An op of {@code kind} in a slot, as the issuer has it once it is let in. */
    private RingOp op(Opcode kind) {
        RingOp op = new RingOp() {
            @Override
            protected Opcode opcode() {
                return kind;
            }

            @Override
            protected int latencyKind() {
                return kind.ordinal();
            }

            @Override
            protected void prepare(Sqe sqe) {
            }

            @Override
            protected boolean complete(int res, int flags, int ringFlags) {
                return true;
            }

            @Override
            protected void fail(Throwable cause) {
            }
        };
        op.userData = slots.put(op, null);
        return op;
    }

    @Test
    void nothingIsExpectedWhileNoTimedRequestIsInFlight() {
        DueCompletions due = new DueCompletions(4, slots);
        assertEquals(CompletionForecast.NOTHING_EXPECTED, due.pollFromNanos());
        RingOp read = op(Opcode.READ);
        due.submitted(read, 1_000);
        assertEquals(1_000, due.pollFromNanos(), "no estimate yet: poll at once");
        due.completed(read, 61_000);
        assertEquals(60_000, due.estimateNanos(Opcode.READ));
        assertEquals(CompletionForecast.NOTHING_EXPECTED, due.pollFromNanos());
    }

    @Test
    void theFirstRequestDueDecidesAcrossKindsAndDepths() {
        DueCompletions due = new DueCompletions(1, slots);
        RingOp warmRead = op(Opcode.READ);
        due.submitted(warmRead, 0);
        due.completed(warmRead, 60_000); // reads: 60 us
        RingOp warmWrite = op(Opcode.WRITE);
        due.submitted(warmWrite, 0);
        due.completed(warmWrite, 400_000); // writes: 400 us

        RingOp write = op(Opcode.WRITE);
        RingOp read1 = op(Opcode.READ);
        RingOp read2 = op(Opcode.READ);
        due.submitted(write, 1_000_000);
        due.submitted(read1, 1_010_000);
        due.submitted(read2, 1_020_000);
        assertEquals(1_040_000, due.pollFromNanos(), "the oldest read, half a read's time after it");
        due.completed(read2, 1_080_000); // out of order: read1 is still the one due first
        assertEquals(1_040_000, due.pollFromNanos());
        due.completed(read1, 1_090_000);
        assertEquals(1_000_000 + 200_000, due.pollFromNanos(), "then the write, half a write's time after it");
    }
}
