package dev.uringactors.ring;

/**
 * An eventfd(2): the way another thread wakes a ring's owner. The owner keeps a READ of it in flight on the
 * ring, so a {@link #signal()} turns into a completion that ends the owner's wait in io_uring_enter.
 */
public final class EventFd implements AutoCloseable {
    private final int fd;
    private final NativeBuffer one;
    private boolean closed;

    private EventFd(int fd) {
        this.fd = fd;
        this.one = NativeBuffer.allocate(8);
        one.putLong(0, 1);
    }

    /** A new non-blocking, close-on-exec eventfd, counter at zero. */
    public static EventFd create() {
        int fd = LibC.eventfd(0, LibC.EFD_CLOEXEC);
        if (fd < 0) {
            throw new UringException("eventfd", -LibC.negErrno(), null);
        }
        return new EventFd(fd);
    }

    /** The eventfd's file descriptor. */
    public int fd() {
        return fd;
    }

    /**
     * Adds 1 to the counter: one write(2), from any thread. After {@link #close()} it does nothing, so a late
     * waker can never write into an fd number the process has since reused.
     */
    public synchronized void signal() {
        if (closed) {
            return;
        }
        if (LibC.write(fd, one.address(), 8) != 8) {
            throw new UringException("write(eventfd)", -LibC.negErrno(), null);
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            LibC.close(fd);
            one.close();
        }
    }
}
