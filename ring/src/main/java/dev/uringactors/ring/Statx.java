package dev.uringactors.ring;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * statx(2) of an open file or a path, called directly. The ring's STATX always runs in a kernel worker thread (it may
 * have a path to look up), a hand-off that costs far more than the call itself when there is no path: the
 * inode of an open file is in memory, and the call does not block.
 */
public final class Statx {
    /** Bytes of a {@code struct statx}. */
    public static final int SIZE = 256;
    /** The empty path that, with AT_EMPTY_PATH, names the open file itself; shared, never freed. */
    private static final NativeBuffer EMPTY_PATH = NativeBuffer.ofString("");

    private Statx() {
    }

    /**
     * The {@code struct statx} (basic fields) of the file open as {@code fd}, as little-endian bytes;
     * {@code name} names the file in the exception if the call fails.
     */
    public static ByteBuffer ofOpenFile(int fd, String name) {
        return call(fd, EMPTY_PATH, OpFlags.AT_EMPTY_PATH, name);
    }

    /** The address of an empty path, which with AT_EMPTY_PATH names the open file itself (never freed). */
    public static long emptyPath() {
        return EMPTY_PATH.address();
    }

    /**
     * Writes the {@code struct statx} (basic fields) of the file open as {@code fd} to the {@link #SIZE} bytes at
     * {@code statx}, allocating nothing; {@code name} names the file in the exception if the call fails.
     */
    public static void ofOpenFile(int fd, long statx, String name) {
        if (LibC.statx(fd, EMPTY_PATH.address(), OpFlags.AT_EMPTY_PATH, OpFlags.STATX_BASIC_STATS, statx) != 0) {
            throw new UringException("statx " + name, LibC.negErrno(), null);
        }
    }

    /**
     * The {@code struct statx} (basic fields) of the file at {@code path}, symlinks followed, as little-endian
     * bytes; {@code path} names the file in the exception if the call fails.
     */
    public static ByteBuffer ofPath(String path) {
        try (NativeBuffer name = NativeBuffer.ofString(path)) {
            return call(OpFlags.AT_FDCWD, name, 0, path);
        }
    }

    private static ByteBuffer call(int dirfd, NativeBuffer path, int flags, String name) {
        byte[] statx = new byte[SIZE];
        if (LibC.statx(dirfd, path.address(), flags, OpFlags.STATX_BASIC_STATS, statx) != 0) {
            throw new UringException("statx " + name, LibC.negErrno(), null);
        }
        return ByteBuffer.wrap(statx).order(ByteOrder.LITTLE_ENDIAN);
    }
}
