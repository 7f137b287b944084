package dev.uringactors.samples;

import dev.uringactors.ring.CompletionHandler;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.SetupFlag;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.UringException;

import java.nio.file.Path;

/**
 * Copies a file through one ring, as liburing's io_uring-cp does: up to {@link #QUEUE_DEPTH} blocks in flight,
 * each read into its own slot of one native buffer and then written from it, in a SINGLE_ISSUER |
 * DEFER_TASKRUN ring owned by this thread. Opening, sizing (STATX), syncing and closing go through the ring too.
 */
final class FileCopy implements CompletionHandler {
    static final int QUEUE_DEPTH = 32;
    static final int BLOCK = 128 * 1024;
    /** user_data: the slot, with this bit for its write. */
    private static final long WRITE = 1L << 32;
    private static final int AT_EMPTY_PATH = 0x1000;

    private final Ring ring;
    private final NativeBuffer buffers;
    private final Path source;
    private final Path target;
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

    private FileCopy(Ring ring, NativeBuffer buffers, Path source, Path target) {
        this.ring = ring;
        this.buffers = buffers;
        this.source = source;
        this.target = target;
    }

    /** Copies {@code source} to {@code target}; returns the bytes copied. */
    static long copy(Path source, Path target) {
        RingOptions options = RingOptions.defaults().withEntries(2 * QUEUE_DEPTH)
                .withFlags(SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
        try (Ring ring = Ring.open(options);
             NativeBuffer buffers = NativeBuffer.allocateAligned((long) QUEUE_DEPTH * BLOCK, 4096)) {
            return new FileCopy(ring, buffers, source, target).run();
        }
    }

    private long run() {
        in = open(source, OpFlags.O_RDONLY | OpFlags.O_CLOEXEC, 0);
        try {
            out = open(target, OpFlags.O_WRONLY | OpFlags.O_CREAT | OpFlags.O_TRUNC | OpFlags.O_CLOEXEC, 0644);
            try {
                size = sizeOfSource();
                pump();
                single(ring.nextSqe().prepFsync(out, 0), Opcode.FSYNC, target);
            } finally {
                single(ring.nextSqe().prepClose(out), Opcode.CLOSE, target);
            }
        } finally {
            single(ring.nextSqe().prepClose(in), Opcode.CLOSE, source);
        }
        return copied;
    }

    private void pump() {
        for (int slot = 0; slot < QUEUE_DEPTH && nextOffset < size; slot++) {
            length[slot] = (int) Math.min(BLOCK, size - nextOffset);
            offset[slot] = nextOffset;
            nextOffset += length[slot];
            read[slot] = 0;
            written[slot] = 0;
            slotsInUse++;
            readRest(slot);
        }
        while (slotsInUse > 0) {
            ring.submitAndWait(1);
            ring.reap(this);
        }
    }

    @Override
    public void onCompletion(long userData, int res, int flags) {
        int slot = (int) userData;
        boolean isWrite = (userData & WRITE) != 0;
        if (res < 0) {
            throw UringException.ofResult(isWrite ? Opcode.WRITE : Opcode.READ, res,
                    (isWrite ? target : source).toString(), ring.setupFlags());
        }
        if (!isWrite) {
            if (res == 0) {
                throw new IllegalStateException(source + " became shorter while it was copied");
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
            } else {
                nextBlock(slot);
            }
        }
    }

    private void nextBlock(int slot) {
        if (nextOffset >= size) {
            slotsInUse--;
            return;
        }
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

    private int open(Path path, int flags, int mode) {
        try (NativeBuffer p = NativeBuffer.ofString(path.toString())) {
            return single(ring.nextSqe().prepOpenat(OpFlags.AT_FDCWD, p.address(), flags, mode), Opcode.OPENAT,
                    path);
        }
    }

    private long sizeOfSource() {
        try (NativeBuffer statx = NativeBuffer.allocate(256); NativeBuffer empty = NativeBuffer.ofString("")) {
            single(ring.nextSqe().prepStatx(in, empty.address(), AT_EMPTY_PATH, OpFlags.STATX_BASIC_STATS,
                    statx.address()), Opcode.STATX, source);
            return statx.getLong(40); // stx_size
        }
    }

    /** Submits the one request just prepared, waits for it, and returns its result or throws its error. */
    private int single(Sqe prepared, Opcode op, Path path) {
        prepared.userData(0);
        int[] result = new int[1];
        ring.submitAndWait(1);
        ring.reap((userData, res, flags) -> result[0] = res);
        if (result[0] < 0) {
            throw UringException.ofResult(op, result[0], path.toString(), ring.setupFlags());
        }
        return result[0];
    }
}
