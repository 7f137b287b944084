package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.Ring;

/**
 * Buffers registered with one ring ({@code uring.buffers.fixed}): a file read or write that fits one, and finds
 * one free, goes out as READ_FIXED or WRITE_FIXED, which skips pinning its memory per request. Only the ring's
 * thread uses them. A buffer comes back after its request's final completion; once the ring is closed, buffers
 * that come back are freed, and those of requests left in the kernel by a drain that timed out are never freed.
 */
final class FixedBuffers {
    private final BufferLease[] leases;
    /** The indexes of the free buffers, a stack in {@code free[0..freeCount)}: no boxing on the request path. */
    private final int[] free;
    private int freeCount;
    private final int size;
    private boolean closed;

    private FixedBuffers(NativeBuffer[] buffers, int size) {
        this.leases = new BufferLease[buffers.length];
        this.size = size;
        this.free = new int[buffers.length];
        for (int i = 0; i < buffers.length; i++) {
            leases[i] = new BufferLease(buffers[i], null, this, i);
            free[freeCount++] = i;
        }
    }

    /** Allocates {@code count} buffers of {@code size} bytes and registers them; a refusal is a UringException. */
    static FixedBuffers register(Ring ring, int count, int size) {
        NativeBuffer[] buffers = new NativeBuffer[count];
        try {
            for (int i = 0; i < count; i++) {
                buffers[i] = NativeBuffer.allocateAligned(size, 4096);
            }
            ring.registerBuffers(buffers);
            return new FixedBuffers(buffers, size);
        } catch (RuntimeException e) {
            for (NativeBuffer b : buffers) {
                if (b != null) {
                    b.close();
                }
            }
            throw e;
        }
    }

    /** A free buffer of at least {@code length} bytes, or null (too long, or none free). */
    BufferLease lease(int length) {
        return length <= size && freeCount > 0 ? leases[free[--freeCount]] : null;
    }

    void giveBack(BufferLease lease) {
        if (closed) {
            lease.buffer().close();
        } else {
            free[freeCount++] = lease.fixedIndex();
        }
    }

    /** The ring is closed: frees the free buffers now, the others as they come back. */
    void close() {
        closed = true;
        while (freeCount > 0) {
            leases[free[--freeCount]].buffer().close();
        }
    }
}
