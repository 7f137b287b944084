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
    void buffersAreAlignedPowerOfTwoSizesAndReused() {
        BufferPool pool = new BufferPool(1 << 20);
        NativeBuffer small = pool.acquire(100);
        assertEquals(4096, small.size());
        assertEquals(0, small.address() % 4096, "O_DIRECT can use any pooled buffer");
        pool.release(small);
        assertSame(small, pool.acquire(4000), "the same size class comes back");
        NativeBuffer mid = pool.acquire(5000);
        assertEquals(8192, mid.size());
        pool.close();
    }

    @Test
    void aBufferLargerThanTheLargestClassIsAllocatedAndFreedEachTime() {
        BufferPool pool = new BufferPool(64 * 1024);
        NativeBuffer big = pool.acquire(3 << 20);
        assertTrue(big.size() >= 3 << 20);
        pool.release(big);
        assertThrows(IllegalStateException.class, big::address, "freed, not pooled");
        assertNotSame(big, pool.acquire(3 << 20));
        pool.close();
    }
}
