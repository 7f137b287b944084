package dev.uringactors.samples;

import dev.uringactors.ring.NativeBuffer;

/** What STATX says of a path: its type and permissions, which file it is (device and inode), its size. */
record PathStat(int mode, int deviceMajor, int deviceMinor, long inode, long size) {
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFLNK = 0120000;

    /** The fields of a little-endian {@code struct statx}. */
    static PathStat of(NativeBuffer statx) {
        return new PathStat(statx.getInt(28) & 0xffff, statx.getInt(136), statx.getInt(140), statx.getLong(32),
                statx.getLong(40));
    }

    boolean isRegularFile() {
        return (mode & S_IFMT) == S_IFREG;
    }

    boolean isSymbolicLink() {
        return (mode & S_IFMT) == S_IFLNK;
    }

    /** The same file: the same inode on the same device, whatever the names or links that led to it. */
    boolean isSameFile(PathStat other) {
        return deviceMajor == other.deviceMajor && deviceMinor == other.deviceMinor && inode == other.inode;
    }

    /** What kind of file this is, as a message says it: "a regular file", "a FIFO"... */
    String kind() {
        return switch (mode & S_IFMT) {
            case S_IFREG -> "a regular file";
            case S_IFLNK -> "a symbolic link";
            case 0040000 -> "a directory";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case 0010000 -> "a FIFO";
            case 0140000 -> "a socket";
            default -> "a file of type " + Integer.toOctalString(mode & S_IFMT);
        };
    }
}
