package dev.uringactors.actors.file;

import dev.uringactors.ring.Statx;

import java.nio.ByteBuffer;
import java.time.Instant;

/** What STATX said of a file. */
public record FileStat(long size, int mode, Instant lastModified, int blockSize) {
    private static final int S_IFMT = 0170000;

    /**
     * statx(2) of an open file or directory, called directly on the calling thread: under a microsecond where the
     * inode is in memory, while the ring's STATX goes through a kernel worker thread ({@link Statx}). A network or
     * FUSE file system may ask its server first, though: on a ring's thread, ask the ring instead
     * ({@link RingProtocol.StatFile}). Throws a {@code UringException} (EBADF for a closed file). On the JDK
     * backend, which has no descriptor to stat, it is the stat of the file's path as it is now.
     */
    public static FileStat of(FileHandle file) {
        if (file.registered()) {
            throw new IllegalArgumentException(file.path() + " is a registered file: it has no descriptor to stat");
        }
        if (file.fd() == FileHandle.NO_DESCRIPTOR) {
            return from(Statx.ofPath(file.path().toString()));
        }
        return from(Statx.ofOpenFile(file.fd(), file.path().toString()));
    }

    /** Reads a little-endian {@code struct statx}: stx_blksize @4, stx_mode @28 (u16), stx_size @40, stx_mtime @112. */
    public static FileStat from(ByteBuffer statx) {
        Instant modified = Instant.ofEpochSecond(statx.getLong(112), statx.getInt(120));
        return new FileStat(statx.getLong(40), statx.getShort(28) & 0xffff, modified, statx.getInt(4));
    }

    /** Whether the file is a directory. */
    public boolean isDirectory() {
        return (mode & S_IFMT) == 0040000;
    }

    /** Whether the file is a regular file. */
    public boolean isRegularFile() {
        return (mode & S_IFMT) == 0100000;
    }
}
