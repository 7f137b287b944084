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

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Copies a file through one ring, as liburing's io_uring-cp does: up to {@link #QUEUE_DEPTH} blocks in flight,
 * each read into its own slot of one native buffer and then written from it, in a SINGLE_ISSUER |
 * DEFER_TASKRUN ring owned by this thread. Opening, sizing (STATX), syncing and closing go through the ring too.
 *
 * <p>It never damages what it was given: only a regular file is copied, never onto itself (the same device and
 * inode, through links or not), and the copy is written to a new file beside the target, which takes the
 * target's name only once its SHA-256 matches the source's. A failure leaves the target as it was and names
 * the operation that failed. Holes in a sparse source are filled in the copy (it reads zeros there).
 */
final class FileCopy implements CompletionHandler {
    static final int QUEUE_DEPTH = 32;
    static final int BLOCK = 128 * 1024;
    /** user_data: the slot, with this bit for its write. */
    private static final long WRITE = 1L << 32;
    /** user_data of a request issued and awaited alone (open, statx, fsync, close). */
    private static final long SINGLE = 1L << 33;

    /** A copy that was made: its size and the SHA-256 that source and copy share. */
    record Result(long bytes, String sha256) {
    }

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

    /**
     * Copies {@code source} to {@code target}. Throws {@link CopyRefusedException} for what it will not copy,
     * {@link UringException} (naming the operation) or {@link IOException} for what failed; the target is then
     * as it was.
     */
    static Result copy(Path source, Path target) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(source, BasicFileAttributes.class);
        if (!attributes.isRegularFile()) {
            throw new CopyRefusedException(source + " is not a regular file ("
                    + (attributes.isDirectory() ? "a directory" : "a device, FIFO or socket") + ")");
        }
        if (Files.exists(target) && Files.isSameFile(source, target)) {
            throw new CopyRefusedException(source + " and " + target + " are the same file");
        }
        Path temporary = Files.createTempFile(target.toAbsolutePath().getParent(),
                "." + target.getFileName(), ".copying");
        try {
            Files.setPosixFilePermissions(temporary, Files.getPosixFilePermissions(source));
            long bytes = copyThroughRing(source, temporary);
            String sha256 = sha256(source);
            String copySha256 = sha256(temporary);
            if (!sha256.equals(copySha256)) {
                throw new IOException("the copy's SHA-256 " + copySha256 + " differs from the source's " + sha256
                        + " (did the source change while it was copied?)");
            }
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return new Result(bytes, sha256);
        } finally {
            Files.deleteIfExists(temporary); // gone already when it took the target's name
        }
    }

    private static long copyThroughRing(Path source, Path target) {
        RingOptions options = RingOptions.defaults().withEntries(2 * QUEUE_DEPTH)
                .withFlags(SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
        // The ring closes first: it waits for every request, so the kernel is done with the buffers before
        // they are freed, even when the copy failed with writes in flight.
        try (NativeBuffer buffers = NativeBuffer.allocateAligned((long) QUEUE_DEPTH * BLOCK, 4096);
             Ring ring = Ring.open(options)) {
            return new FileCopy(ring, buffers, source, target).run();
        }
    }

    private static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) > 0; ) {
                digest.update(chunk, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private long run() {
        in = open(source, OpFlags.O_RDONLY | OpFlags.O_CLOEXEC, 0);
        try {
            out = open(target, OpFlags.O_WRONLY | OpFlags.O_TRUNC | OpFlags.O_CLOEXEC, 0);
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
                throw new CopyRefusedException(source + " became shorter while it was copied");
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
            single(ring.nextSqe().prepStatx(in, empty.address(), OpFlags.AT_EMPTY_PATH, OpFlags.STATX_BASIC_STATS,
                    statx.address()), Opcode.STATX, source);
            return statx.getLong(40); // stx_size
        }
    }

    /**
     * Submits the one request just prepared, waits for it, and returns its result or throws its error. After a
     * failed copy, completions of the copy's own requests may still arrive: they are not this request's answer.
     */
    private int single(Sqe prepared, Opcode op, Path path) {
        prepared.userData(SINGLE);
        int[] result = {1};
        boolean[] answered = {false};
        while (!answered[0]) {
            ring.submitAndWait(1);
            ring.reap((userData, res, flags) -> {
                if (userData == SINGLE) {
                    result[0] = res;
                    answered[0] = true;
                }
            });
        }
        if (result[0] < 0) {
            throw UringException.ofResult(op, result[0], path.toString(), ring.setupFlags());
        }
        return result[0];
    }
}
