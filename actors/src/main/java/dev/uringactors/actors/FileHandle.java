package dev.uringactors.actors;

import java.nio.file.Path;

/**
 * An open file: its descriptor, the path it was opened by, whether it was opened with O_DIRECT, whether its
 * reads and writes go through the ring's IOPOLL companion ring (polled completions), the ring it was opened on
 * (requests for it go there, so that its completions stay on one thread), and the id of the open that gave it.
 * Close it with {@link RingProtocol.Close}; after that, every request with this handle (or a copy) fails with
 * {@link java.nio.channels.ClosedChannelException}, even once another open has been given the same fd number.
 */
public record FileHandle(int fd, Path path, boolean direct, boolean polled, int ring, long id) {
    /** The same open file, with its requests sent to ring {@code other} instead. */
    public FileHandle onRing(int other) {
        return new FileHandle(fd, path, direct, polled, other, id);
    }
}
