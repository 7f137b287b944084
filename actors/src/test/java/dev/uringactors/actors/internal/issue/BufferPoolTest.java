package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.NativeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BufferPoolTest {
    @Test
    void buffersAreAlignedPowerOfTwoSizesAndReusedLeaseAndAll() {
        BufferPool pool = new BufferPool(1 << 20);
        BufferLease small = pool.lease(100);
        assertEquals(4096, small.buffer().size());
        assertEquals(0, small.address() % 4096, "O_DIRECT can use any pooled buffer");
        assertEquals(-1, small.fixedIndex(), "not a registered buffer");
        small.giveBack();
        assertSame(small, pool.lease(4000), "the same size class comes back: taking it allocates nothing");
        BufferLease mid = pool.leaseFixedOrPooled(5000);
        assertEquals(8192, mid.buffer().size(), "with no registered buffers, a pooled one");
        assertEquals(0, pool.fixedUses());
        pool.close();
    }

    @Test
    void aBufferLargerThanTheLargestClassIsAllocatedAndFreedEachTime() {
        BufferPool pool = new BufferPool(64 * 1024);
        BufferLease big = pool.lease(3 << 20);
        assertTrue(big.buffer().size() >= 3 << 20);
        big.giveBack();
        assertThrows(IllegalStateException.class, big::address, "freed, not pooled");
        assertNotSame(big, pool.lease(3 << 20));
        pool.close();
    }

    @Test
    void aLeaseOfTheOpsOwnBufferFreesItWhenGivenBack() {
        BufferLease own = BufferLease.owning(NativeBuffer.allocate(28));
        own.giveBack();
        assertThrows(IllegalStateException.class, own::address);
    }
}
