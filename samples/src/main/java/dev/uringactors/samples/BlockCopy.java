package dev.uringactors.samples;

import dev.uringactors.ring.CompletionHandler;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.UringException;

/**
 * Moves a file's bytes from one fd to another through a ring, as liburing's io_uring-cp does: up to
 * {@link #QUEUE_DEPTH} blocks in flight, each read into its own slot of one native buffer and then written from
 * it. Short reads and writes are continued; a source that ends early is refused.
 */
final class BlockCopy implements CompletionHandler {
    static final int QUEUE_DEPTH = 32;
    static final int BLOCK = 128 * 1024;
    /** user_data: the slot, with this bit for its write. */
    private static final long WRITE = 1L << 32;

    private final Ring ring;
    private final NativeBuffer buffers;
    private final String sourceName;
    private final String copyName;
    /** Per slot: the file range it is copying, and how much of it has been read / written. */
    private final long[] offset = new long[QUEUE_DEPTH];
    private final int[] length = new int[QUEUE_DEPTH];
    private final int[] read = new int[QUEUE_DEPTH];
    private final int[] written = new int[QUEUE_DEPTH];
    private int in;
    private int out;
    private long size;
    private long nextOffset;
    private long copied;
    private int slotsInUse;

    /**
     * {@code buffers} holds {@code QUEUE_DEPTH} blocks and must outlive every request (close the ring first);
     * the names are how errors name the two files.
     */
    BlockCopy(Ring ring, NativeBuffer buffers, String sourceName, String copyName) {
        this.ring = ring;
        this.buffers = buffers;
        this.sourceName = sourceName;
        this.copyName = copyName;
    }

    /** Copies the first {@code size} bytes of {@code in} to {@code out}; returns the bytes written. */
    long copy(int in, int out, long size) {
        this.in = in;
        this.out = out;
        this.size = size;
        for (int slot = 0; slot < QUEUE_DEPTH && nextOffset < size; slot++) {
            slotsInUse++;
            nextBlock(slot);
        }
        while (slotsInUse > 0) {
            ring.submitAndWait(1);
            ring.reap(this);
        }
        return copied;
    }

    @Override
    public void onCompletion(long userData, int res, int flags) {
        int slot = (int) userData;
        boolean isWrite = (userData & WRITE) != 0;
        if (res < 0) {
            throw UringException.ofResult(isWrite ? Opcode.WRITE : Opcode.READ, res,
                    isWrite ? copyName : sourceName, ring.setupFlags());
        }
        if (!isWrite) {
            if (res == 0) {
                throw new CopyRefusedException(sourceName + " became shorter while it was copied");
            }
            read[slot] += res;
            writeRest(slot);
        } else {
            written[slot] += res;
            copied += res;
            if (written[slot] < read[slot]) {
                writeRest(slot); // short write
            } else if (read[slot] < length[slot]) {
                readRest(slot); // short read: the block is not done
            } else if (nextOffset < size) {
                nextBlock(slot);
            } else {
                slotsInUse--;
            }
        }
    }

    private void nextBlock(int slot) {
        length[slot] = (int) Math.min(BLOCK, size - nextOffset);
        offset[slot] = nextOffset;
        nextOffset += length[slot];
        read[slot] = 0;
        written[slot] = 0;
        readRest(slot);
    }

    private void readRest(int slot) {
        ring.nextSqe().prepRead(in, slotAddress(slot) + read[slot], length[slot] - read[slot],
                offset[slot] + read[slot]).userData(slot);
    }

    private void writeRest(int slot) {
        ring.nextSqe().prepWrite(out, slotAddress(slot) + written[slot], read[slot] - written[slot],
                offset[slot] + written[slot]).userData(slot | WRITE);
    }

    private long slotAddress(int slot) {
        return buffers.address() + (long) slot * BLOCK;
    }
}
