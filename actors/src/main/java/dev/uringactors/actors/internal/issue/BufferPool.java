package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.NativeBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Native I/O buffers of one ring, reused instead of allocated, zeroed and freed per request. Sizes are powers
 * of two from 4 KiB, every buffer 4096-aligned so that O_DIRECT can use any of them; larger buffers than the
 * largest class (a big socket write) are allocated and freed each time. Only the ring's thread uses it. A buffer
 * comes back only after its request's final completion, when the kernel is done with it.
 */
public final class BufferPool {
    private static final int MIN_SHIFT = 12;
    private static final int ALIGNMENT = 4096;
    /** Buffers kept per size class, and bytes kept per class at most: enough for a deep queue of small reads. */
    private static final int MAX_KEPT = 256;
    private static final long MAX_KEPT_BYTES = 16L << 20;

    /** Free buffers by size class: index 0 holds 4 KiB buffers, index i holds 4 KiB << i. */
    private final List<ArrayDeque<NativeBuffer>> free = new ArrayList<>();
    /** The current ring's registered buffers, or null where there are none. */
    private FixedBuffers fixed;
    private long fixedUses;
    private final int maxIoSize;

    BufferPool(int maxIoSize) {
        this.maxIoSize = maxIoSize;
        for (int i = 0; i <= classOf(maxIoSize); i++) {
            free.add(new ArrayDeque<>());
        }
    }

    private static int classOf(int length) {
        int shift = 32 - Integer.numberOfLeadingZeros(Math.max(length, 1) - 1);
        return Math.max(shift, MIN_SHIFT) - MIN_SHIFT;
    }

    /** The largest single read or write ({@code uring.buffers.max-io-size}). */
    public int maxIoSize() {
        return maxIoSize;
    }

    /** A buffer of at least {@code length} bytes; its contents are whatever was there before. */
    public NativeBuffer acquire(int length) {
        int c = classOf(length);
        if (c >= free.size()) {
            return NativeBuffer.allocateAligned(Math.max(length, 1), ALIGNMENT);
        }
        NativeBuffer b = free.get(c).poll();
        return b != null ? b : NativeBuffer.allocateAligned(1L << (c + MIN_SHIFT), ALIGNMENT);
    }

    /** Registered buffers to hand out from now on (those of a new ring), or null for none. */
    void useFixed(FixedBuffers buffers) {
        this.fixed = buffers;
    }

    /** The current ring's registered buffers, or null. */
    public FixedBuffers fixed() {
        return fixed;
    }

    /** A request used a registered buffer. */
    public void countFixedUse() {
        fixedUses++;
    }

    /** Requests that used a registered buffer, since the issuer started. */
    public long fixedUses() {
        return fixedUses;
    }

    public void release(NativeBuffer buffer) {
        int c = classOf((int) buffer.size());
        ArrayDeque<NativeBuffer> list = c < free.size() ? free.get(c) : null;
        if (list != null && list.size() < MAX_KEPT && (list.size() + 1) * buffer.size() <= MAX_KEPT_BYTES) {
            list.push(buffer);
        } else {
            buffer.close();
        }
    }

    /** Frees every pooled buffer. */
    void close() {
        for (ArrayDeque<NativeBuffer> list : free) {
            list.forEach(NativeBuffer::close);
            list.clear();
        }
    }
}
