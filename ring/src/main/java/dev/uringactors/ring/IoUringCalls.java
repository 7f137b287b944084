package dev.uringactors.ring;

/**
 * The three io_uring system calls (x86_64 numbers). Each returns its result, or {@code -errno} on failure, the
 * way liburing's wrappers do, so that the hot path never builds an exception for EINTR or ETIME.
 */
final class IoUringCalls {
    private static final long SYS_IO_URING_SETUP = 425;
    private static final long SYS_IO_URING_ENTER = 426;
    private static final long SYS_IO_URING_REGISTER = 427;

    static final int ENTER_GETEVENTS = 1;
    static final int ENTER_SQ_WAKEUP = 1 << 1;
    static final int ENTER_SQ_WAIT = 1 << 2;
    static final int ENTER_EXT_ARG = 1 << 3;
    static final int ENTER_REGISTERED_RING = 1 << 4;

    static final int REGISTER_BUFFERS = 0;
    static final int UNREGISTER_BUFFERS = 1;
    static final int REGISTER_FILES = 2;
    static final int UNREGISTER_FILES = 3;
    static final int REGISTER_FILES_UPDATE = 6;
    static final int REGISTER_PROBE = 8;
    static final int REGISTER_ENABLE_RINGS = 12;
    static final int REGISTER_IOWQ_MAX_WORKERS = 19;
    static final int REGISTER_RING_FDS = 20;
    static final int UNREGISTER_RING_FDS = 21;
    static final int REGISTER_PBUF_RING = 22;
    static final int UNREGISTER_PBUF_RING = 23;

    private IoUringCalls() {
    }

    static int setup(int entries, long params) {
        return result(LibC.syscall(SYS_IO_URING_SETUP, Integer.toUnsignedLong(entries), params));
    }

    static int enter(int fd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        return result(LibC.syscall(SYS_IO_URING_ENTER, fd, Integer.toUnsignedLong(toSubmit),
                Integer.toUnsignedLong(minComplete), Integer.toUnsignedLong(flags), arg, argSize));
    }

    static int register(int fd, int opcode, long arg, int nrArgs) {
        return result(LibC.syscall(SYS_IO_URING_REGISTER, fd, opcode, arg, Integer.toUnsignedLong(nrArgs)));
    }

    private static int result(long ret) {
        return ret < 0 ? LibC.negErrno() : (int) ret;
    }
}
