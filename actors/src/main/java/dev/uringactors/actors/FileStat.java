package dev.uringactors.actors;

import java.time.Instant;

/** What STATX said of a file. */
public record FileStat(long size, int mode, Instant lastModified, int blockSize) {
    private static final int S_IFMT = 0170000;

    public boolean isDirectory() {
        return (mode & S_IFMT) == 0040000;
    }

    public boolean isRegularFile() {
        return (mode & S_IFMT) == 0100000;
    }
}
