package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.NativeBuffer;

/**
 * Native memory an op points the kernel at, lent to it as it enters the kernel: from the ring's pool, a buffer
 * registered with the ring where the op may use one, or a buffer the op made for itself. The issuer keeps the
 * lease in the op's slot and gives it back after the op's final completion (or when the op never reached the
 * kernel), never before: until then the kernel may write into it. Pooled leases live as long as their buffers,
 * so taking one allocates nothing.
 */
public final class BufferLease {
    private final NativeBuffer buffer;
    /** Where it goes back; both null for a buffer of the op's own, which is freed. */
    private final BufferPool pool;
    private final FixedBuffers fixed;
    private final int fixedIndex;

    BufferLease(NativeBuffer buffer, BufferPool pool, FixedBuffers fixed, int fixedIndex) {
        this.buffer = buffer;
        this.pool = pool;
        this.fixed = fixed;
        this.fixedIndex = fixedIndex;
    }

    /** A lease of a buffer the op allocated itself: freed when the lease is given back. */
    public static BufferLease owning(NativeBuffer buffer) {
        return new BufferLease(buffer, null, null, -1);
    }

    public NativeBuffer buffer() {
        return buffer;
    }

    public long address() {
        return buffer.address();
    }

    /** The registered buffer's index, for READ_FIXED and WRITE_FIXED; -1 for any other buffer. */
    public int fixedIndex() {
        return fixedIndex;
    }

    /** Gives the buffer back where it came from; the issuer's, after the op's final completion. */
    void giveBack() {
        if (fixed != null) {
            fixed.giveBack(this);
        } else if (pool != null) {
            pool.giveBack(this);
        } else {
            buffer.close();
        }
    }
}
