package dev.uringactors.ring;

/** Flags of single ops, carried in the SQE's op-flags word or its {@code len}, as the kernel names them. */
public final class OpFlags {
    /** FSYNC: only data, as fdatasync(2). */
    public static final int FSYNC_DATASYNC = 1;

    /** TIMEOUT: the timespec is an absolute time. */
    public static final int TIMEOUT_ABS = 1;
    /** TIMEOUT: measure against CLOCK_BOOTTIME. */
    public static final int TIMEOUT_BOOTTIME = 1 << 2;
    /** TIMEOUT: measure against CLOCK_REALTIME. */
    public static final int TIMEOUT_REALTIME = 1 << 3;
    /** TIMEOUT: an expiry completes with 0 instead of -ETIME (5.16). */
    public static final int TIMEOUT_ETIME_SUCCESS = 1 << 5;

    /** ASYNC_CANCEL: cancel every match, not just the first (5.19). */
    public static final int ASYNC_CANCEL_ALL = 1;
    /** ASYNC_CANCEL: match on the file descriptor instead of user_data (5.19). */
    public static final int ASYNC_CANCEL_FD = 1 << 1;
    /** ASYNC_CANCEL: match any request (5.19). */
    public static final int ASYNC_CANCEL_ANY = 1 << 2;

    /** POLL_ADD, in {@code len}: stay armed, one CQE per event, with F_MORE (5.13). */
    public static final int POLL_ADD_MULTI = 1;
    /** poll(2): data to read. */
    public static final int POLLIN = 0x001;
    /** poll(2): writing will not block. */
    public static final int POLLOUT = 0x004;
    /** poll(2): an error condition. */
    public static final int POLLERR = 0x008;
    /** poll(2): hang-up. */
    public static final int POLLHUP = 0x010;

    /** OPENAT: open flags (asm-generic/fcntl.h: the same on every architecture this library runs on). */
    public static final int O_RDONLY = 0;
    /** open(2): read only. */
    public static final int O_WRONLY = 1;
    /** open(2): write only. */
    public static final int O_RDWR = 2;
    /** open(2): read and write. */
    public static final int O_CREAT = 0x40;
    /** open(2): create the file if it does not exist. */
    public static final int O_TRUNC = 0x200;
    /** open(2): truncate to length 0. */
    public static final int O_APPEND = 0x400;
    /** open(2): every write appends. */
    public static final int O_CLOEXEC = 0x80000;
    /** open(2): close on exec. */
    public static final int O_EXCL = 0x80;
    /** open(2): with O_CREAT, fail if the file exists. */
    public static final int O_DSYNC = 0x1000;
    /** open(2): each write is durable as fdatasync(2) would make it. */
    public static final int O_SYNC = 0x101000;
    /** The dirfd meaning "relative to the current directory". */
    public static final int AT_FDCWD = -100;
    /** STATX: an empty path means the file {@code dirfd} itself refers to. */
    public static final int AT_EMPTY_PATH = 0x1000;

    /** STATX: the basic fields (mode, size, times...). */
    public static final int STATX_BASIC_STATS = 0x7ff;

    /** ACCEPT, in ioprio: stay armed, one CQE per connection, with F_MORE (5.19). */
    public static final int ACCEPT_MULTISHOT = 1;
    /** RECV, in ioprio: stay armed, one CQE per received chunk in a provided buffer, with F_MORE (6.0). */
    public static final int RECV_MULTISHOT = 1 << 1;
    /** SEND_ZC, in ioprio: report in the notification whether the data was copied after all. */
    public static final int SEND_ZC_REPORT_USAGE = 1 << 3;
    /** send(2) flag: no SIGPIPE when the peer has gone; EPIPE instead. */
    public static final int MSG_NOSIGNAL = 0x4000;
    /** accept4(2) / socket(2) flag. */
    public static final int SOCK_CLOEXEC = 0x80000;
    /** SHUTDOWN: how. */
    public static final int SHUT_RD = 0;
    /** shutdown(2): no more sending. */
    public static final int SHUT_WR = 1;
    /** shutdown(2): neither. */
    public static final int SHUT_RDWR = 2;

    /** The file_index that asks the kernel to pick a free registered-file slot (5.19). */
    public static final int FILE_INDEX_ALLOC = -1;

    /** Machines whose O_DIRECT and O_NOFOLLOW values this library knows: {O_DIRECT, O_NOFOLLOW} by os.arch. */
    private static final java.util.Map<String, int[]> ARCH_OPEN_FLAGS = java.util.Map.of(
            "amd64", new int[] {0x4000, 0x20000},
            "x86_64", new int[] {0x4000, 0x20000},
            "riscv64", new int[] {0x4000, 0x20000},
            "aarch64", new int[] {0x10000, 0x8000});
    private static final String ARCH = System.getProperty("os.arch");
    /** This machine's row of {@link #ARCH_OPEN_FLAGS}, or null where its values are not known. */
    private static final int[] THIS_ARCH_OPEN_FLAGS = ARCH_OPEN_FLAGS.get(ARCH);

    private OpFlags() {
    }

    /** OPENAT: O_DIRECT, whose value depends on the architecture; fails on one whose value is not known here. */
    public static int oDirect() {
        return archOpenFlag(0, "O_DIRECT");
    }

    /** OPENAT: O_NOFOLLOW, whose value depends on the architecture; fails on one whose value is not known here. */
    public static int oNoFollow() {
        return archOpenFlag(1, "O_NOFOLLOW");
    }

    private static int archOpenFlag(int which, String name) {
        if (THIS_ARCH_OPEN_FLAGS == null) {
            // A wrong value would silently mean another flag: refuse instead.
            throw new UnsupportedOperationException(name + " differs between architectures, and its value on "
                    + ARCH + " is not known to this library (known: " + ARCH_OPEN_FLAGS.keySet() + ")");
        }
        return THIS_ARCH_OPEN_FLAGS[which];
    }
}
