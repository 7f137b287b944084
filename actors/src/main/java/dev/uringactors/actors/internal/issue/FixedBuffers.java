package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.Ring;

/**
 * Buffers registered with one ring ({@code uring.buffers.fixed}): a file read or write that fits one, and finds
 * one free, goes out as READ_FIXED or WRITE_FIXED, which skips pinning its memory per request. Only the ring's
 * thread uses them. A buffer comes back after its request's final completion; once the ring is closed, buffers
 * that come back are freed, and those of requests left in the kernel by a drain that timed out are never freed.
 */
public final class FixedBuffers {
    private final NativeBuffer[] buffers;
    /** The indexes of the free buffers, a stack in {@code free[0..freeCount)}: no boxing on the request path. */
    private final int[] free;
    private int freeCount;
    private final int size;
    private boolean closed;

    private FixedBuffers(NativeBuffer[] buffers, int size) {
        this.buffers = buffers;
        this.size = size;
        this.free = new int[buffers.length];
        for (int i = 0; i < buffers.length; i++) {
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

    /** The index of a free buffer of at least {@code length} bytes, or -1 (too long, or none free). */
    public int acquire(int length) {
        return length <= size && freeCount > 0 ? free[--freeCount] : -1;
    }

    public NativeBuffer buffer(int index) {
        return buffers[index];
    }

    public void release(int index) {
        if (closed) {
            buffers[index].close();
        } else {
            free[freeCount++] = index;
        }
    }

    /** The ring is closed: frees the free buffers now, the others as they come back. */
    void close() {
        closed = true;
        while (freeCount > 0) {
            buffers[free[--freeCount]].close();
        }
    }
}
