package dev.uringactors.ring;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

import static dev.uringactors.ring.RingMemory.U32;

/**
 * The SQ: the application hands out SQE slots at its local tail and publishes them by storing the kernel-visible
 * tail with release semantics; the kernel consumes them by moving the head.
 */
final class SubmissionQueue {
    static final int NEED_WAKEUP = 1;
    static final int CQ_OVERFLOW = 1 << 1;
    static final int TASKRUN = 1 << 2;

    private final ByteBuffer ring;
    private final int headOffset;
    private final int tailOffset;
    private final int flagsOffset;
    private final int mask;
    final int entries;
    private final int sqeShift;
    private final Sqe sqe;

    private int localTail;
    private int cachedHead;
    /** SQEs handed out since the ring was created. */
    long taken;
    /** Of those, the ones that post no CQE on success (CQE_SKIP_SUCCESS). */
    long skipSuccess;

    SubmissionQueue(RingMemory sqRing, RingMemory sqes, NativeBuffer params, boolean sqe128, boolean noSqArray) {
        this.ring = sqRing.buffer;
        this.headOffset = params.getInt(40);
        this.tailOffset = params.getInt(44);
        this.mask = ring.getInt(params.getInt(48));
        this.entries = ring.getInt(params.getInt(52));
        this.flagsOffset = params.getInt(56);
        this.sqeShift = sqe128 ? 7 : 6;
        this.sqe = new Sqe(sqes.buffer, this);
        if (!noSqArray) {
            // The index array maps ring positions to SQE slots; we always use slot == position.
            int arrayOffset = params.getInt(64);
            for (int i = 0; i < entries; i++) {
                ring.putInt(arrayOffset + 4 * i, i);
            }
        }
        this.localTail = (int) U32.getAcquire(ring, tailOffset);
        this.cachedHead = (int) U32.getAcquire(ring, headOffset);
    }

    /** The next free SQE slot, cleared by the prep method the caller applies; null when the SQ is full. */
    Sqe next() {
        if (localTail - cachedHead >= entries) {
            cachedHead = loadAcquireHead();
            if (localTail - cachedHead >= entries) {
                return null;
            }
        }
        sqe.moveTo((localTail++ & mask) << sqeShift);
        taken++;
        return sqe;
    }

    /** Publishes every SQE handed out so far; returns how many the kernel has not consumed yet. */
    int flush() {
        storeReleaseTail(localTail);
        cachedHead = loadAcquireHead();
        return localTail - cachedHead;
    }

    int spaceLeft() {
        return entries - (localTail - loadAcquireHead());
    }

    /** SQ ring flags (NEED_WAKEUP, CQ_OVERFLOW, TASKRUN); callers that need a full fence issue it first. */
    int flags() {
        return (int) U32.getVolatile(ring, flagsOffset);
    }

    boolean needsWakeupAfterFence() {
        VarHandle.fullFence();
        return (flags() & NEED_WAKEUP) != 0;
    }

    private int loadAcquireHead() {
        return (int) U32.getAcquire(ring, headOffset);
    }

    private void storeReleaseTail(int tail) {
        U32.setRelease(ring, tailOffset, tail);
    }
}
