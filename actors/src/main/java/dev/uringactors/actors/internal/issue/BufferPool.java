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
    private final List<ArrayDeque<BufferLease>> free = new ArrayList<>();
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

    /** A pooled buffer of at least {@code length} bytes; its contents are whatever was there before. */
    public BufferLease lease(int length) {
        int c = classOf(length);
        if (c >= free.size()) {
            return new BufferLease(NativeBuffer.allocateAligned(Math.max(length, 1), ALIGNMENT), this, null, -1);
        }
        BufferLease b = free.get(c).poll();
        return b != null ? b
                : new BufferLease(NativeBuffer.allocateAligned(1L << (c + MIN_SHIFT), ALIGNMENT), this, null, -1);
    }

    /** A registered buffer of at least {@code length} bytes if one is free, else a pooled one. */
    public BufferLease leaseFixedOrPooled(int length) {
        BufferLease registered = fixed == null ? null : fixed.lease(length);
        if (registered == null) {
            return lease(length);
        }
        fixedUses++;
        return registered;
    }

    /** Registered buffers to hand out from now on (those of a new ring), or null for none. */
    void useFixed(FixedBuffers buffers) {
        this.fixed = buffers;
    }

    /** Requests that used a registered buffer, since the issuer started. */
    public long fixedUses() {
        return fixedUses;
    }

    void giveBack(BufferLease lease) {
        long size = lease.buffer().size();
        int c = classOf((int) size);
        ArrayDeque<BufferLease> list = c < free.size() ? free.get(c) : null;
        if (list != null && list.size() < MAX_KEPT && (list.size() + 1) * size <= MAX_KEPT_BYTES) {
            list.push(lease);
        } else {
            lease.buffer().close();
        }
    }

    /** Frees every pooled buffer. */
    void close() {
        for (ArrayDeque<BufferLease> list : free) {
            list.forEach(lease -> lease.buffer().close());
            list.clear();
        }
    }
}
