package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sqe;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the issuer keeps per op, in its slot: plain code, no ring. */
class SlotTableTest {
    private static RingOp nop() {
        return new SimpleOp(Opcode.NOP, RingOp.Admission.EXEMPT, Sqe::prepNop, SimpleOp.Outcome.IGNORED);
    }

    @Test
    void aSlotGivesBackItsLeaseWhenFreedAndAStaleUserDataFindsNothing() {
        SlotTable slots = new SlotTable();
        RingOp op = nop();
        BufferLease lease = BufferLease.owning(NativeBuffer.allocate(64));
        long userData = slots.put(op, lease);
        slots.submittedAt(userData, 1_000);
        slots.markCompletionFailed(userData);
        assertSame(op, slots.get(userData));
        assertEquals(1_000, slots.submittedAt(userData));
        assertTrue(slots.completionFailed(userData));

        slots.remove(userData);
        assertThrows(IllegalStateException.class, lease::address, "the lease went back with the slot");
        assertNull(slots.get(userData));
        assertEquals(-1, slots.submittedAt(userData));
        assertFalse(slots.completionFailed(userData));

        long reused = slots.put(nop(), null);
        assertEquals((int) userData, (int) reused, "the same index");
        assertNotEquals(userData, reused, "under a new generation");
        assertNull(slots.get(userData), "the old user_data names nothing");
        assertEquals(-1, slots.submittedAt(reused), "and the new op starts with nothing of the old one's");
        assertFalse(slots.completionFailed(reused));
    }

    @Test
    void opsLeftInTheKernelAreAbandonedWithTheirMemoryNotFreed() {
        SlotTable slots = new SlotTable();
        BufferLease lease = BufferLease.owning(NativeBuffer.allocate(64));
        long userData = slots.put(nop(), lease);
        slots.abandonAll();
        assertEquals(0, slots.size());
        assertNull(slots.get(userData));
        lease.address(); // still allocated: the kernel may write into it (it throws once freed)
        lease.giveBack();
    }

    @Test
    void theTableGrowsAndKeepsEverySlotApart() {
        SlotTable slots = new SlotTable();
        long[] userData = new long[200];
        RingOp[] ops = new RingOp[200];
        for (int i = 0; i < 200; i++) {
            ops[i] = nop();
            userData[i] = slots.put(ops[i], null);
            slots.submittedAt(userData[i], i);
        }
        assertEquals(200, slots.size());
        for (int i = 0; i < 200; i++) {
            assertSame(ops[i], slots.get(userData[i]));
            assertEquals(i, slots.submittedAt(userData[i]));
        }
    }
}
