package dev.uringactors.ring;

/**
 * A pipe(2), the buffer that SPLICE moves file pages through on their way to a socket without copying them:
 * file to {@link #writeEnd()}, then {@link #readEnd()} to the socket. Its capacity is raised to what one splice
 * should move at most.
 */
public final class Pipe implements AutoCloseable {
    private static final int F_SETPIPE_SZ = 1031;
    private final int readEnd;
    private final int writeEnd;
    private final int capacity;
    private boolean closed;

    private Pipe(int readEnd, int writeEnd, int capacity) {
        this.readEnd = readEnd;
        this.writeEnd = writeEnd;
        this.capacity = capacity;
    }

    /**
     * A pipe that holds {@code capacity} bytes if the kernel allows it (at most /proc/sys/fs/pipe-max-size for an
     * unprivileged process); otherwise it keeps the default, and {@link #capacity()} says what it holds.
     */
    public static Pipe open(int capacity) {
        int[] fds = new int[2];
        if (LibC.pipe2(fds, LibC.O_CLOEXEC) != 0) {
            throw new UringException("pipe2", LibC.negErrno(), null);
        }
        int size = LibC.fcntl(fds[1], F_SETPIPE_SZ, capacity);
        return new Pipe(fds[0], fds[1], size > 0 ? size : 65536);
    }

    /** The end to read from. */
    public int readEnd() {
        return readEnd;
    }

    /** The end to write to. */
    public int writeEnd() {
        return writeEnd;
    }

    /** Bytes the pipe holds at most. */
    public int capacity() {
        return capacity;
    }

    /** Closes both ends with close(2): call it only once no request uses them. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            LibC.close(readEnd);
            LibC.close(writeEnd);
        }
    }
}
