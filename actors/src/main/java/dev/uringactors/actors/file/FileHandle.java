package dev.uringactors.actors.file;

import java.nio.file.Path;

/**
 * An open file: its descriptor, the path it was opened by, whether it was opened with O_DIRECT, whether its
 * reads and writes go through the ring's IOPOLL companion ring (polled completions), the ring it was opened on
 * (requests for it go there, so that its completions stay on one thread), the id of the open that gave it, and
 * whether it lives in that ring's registered file table (then {@code fd} is its slot there, not a descriptor).
 * Close it with {@link RingProtocol.Close}; after that, every request with this handle (or a copy) fails with
 * {@link java.nio.channels.ClosedChannelException}, even once another open has been given the same fd number.
 * On the JDK backend ({@code uring.backend}) the JDK keeps a file channel's descriptor to itself: {@code fd} is
 * {@link #NO_DESCRIPTOR}, and {@code ring} names the file actor the handle's requests go to.
 */
public record FileHandle(int fd, Path path, boolean direct, boolean polled, int ring, long id, boolean registered) {
    /** The {@code fd} of a file open through a JDK file channel, whose descriptor is not known. */
    public static final int NO_DESCRIPTOR = -1;

    /**
     * The same open file, with its requests sent to ring {@code other} instead. A registered file's slot belongs
     * to the table of its own ring: it has no copy for another ({@code IllegalArgumentException}).
     */
    public FileHandle onRing(int other) {
        if (registered && other != ring) {
            throw new IllegalArgumentException(path + " is a registered file of ring " + ring
                    + ": its requests go to that ring only");
        }
        return new FileHandle(fd, path, direct, polled, other, id, registered);
    }
}
