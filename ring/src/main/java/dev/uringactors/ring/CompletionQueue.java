package dev.uringactors.ring;

import java.nio.ByteBuffer;

import static dev.uringactors.ring.RingMemory.U32;

/**
 * The CQ: the kernel posts CQEs and moves the tail; the application reads them and moves the head with release
 * semantics so that the kernel may reuse the slots.
 */
final class CompletionQueue {
    private final ByteBuffer ring;
    private final int headOffset;
    private final int tailOffset;
    private final int overflowOffset;
    private final int cqesOffset;
    private final int mask;
    final int entries;

    private int localHead;
    /** Completions without F_MORE of requests counted in flight: requests that are done. */
    long finals;

    CompletionQueue(RingMemory cqRing, NativeBuffer params) {
        this.ring = cqRing.buffer;
        this.headOffset = params.getInt(80);
        this.tailOffset = params.getInt(84);
        this.mask = ring.getInt(params.getInt(88));
        this.entries = ring.getInt(params.getInt(92));
        this.overflowOffset = params.getInt(96);
        this.cqesOffset = params.getInt(100);
        this.localHead = (int) U32.getAcquire(ring, headOffset);
    }

    int ready() {
        return loadAcquireTail() - localHead;
    }

    /**
     * Hands up to {@code max} CQEs to the handler. The head moves once, after the batch (or when a handler
     * throws, past the CQE that threw), so the kernel may reuse exactly the slots that were handed out.
     */
    int reap(CompletionHandler handler, int max) {
        int tail = loadAcquireTail();
        int head = localHead;
        int n = 0;
        try {
            while (head != tail && n < max) {
                int at = cqesOffset + ((head & mask) << 4);
                head++;
                n++;
                int flags = ring.getInt(at + 12);
                long userData = ring.getLong(at);
                if (UserData.isOwnRequest(userData)) {
                    if (CqeFlags.isFinal(flags)) {
                        finals++;
                    }
                } else {
                    // A failed CQE_SKIP_SUCCESS request (never counted in flight) or a message from another ring.
                    userData &= ~UserData.SKIP_SUCCESS;
                }
                handler.onCompletion(userData, ring.getInt(at + 8), flags);
            }
        } finally {
            localHead = head;
            storeReleaseHead(head);
        }
        return n;
    }

    /** CQEs the kernel dropped because it could not even queue them in its overflow list. */
    int dropped() {
        return (int) U32.getAcquire(ring, overflowOffset);
    }

    private int loadAcquireTail() {
        return (int) U32.getAcquire(ring, tailOffset);
    }

    private void storeReleaseHead(int head) {
        U32.setRelease(ring, headOffset, head);
    }
}
