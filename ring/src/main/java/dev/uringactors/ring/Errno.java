package dev.uringactors.ring;

/**
 * Linux errno values (x86_64) by name. A CQE carries {@code -errno} in {@code res}; {@link #name(int)} turns
 * either sign into the symbolic name, which is what users search for.
 */
public final class Errno {
    /** Operation not permitted. */
    public static final int EPERM = 1;
    /** No such file or directory. */
    public static final int ENOENT = 2;
    /** Interrupted system call. */
    public static final int EINTR = 4;
    /** I/O error. */
    public static final int EIO = 5;
    /** Bad file descriptor. */
    public static final int EBADF = 9;
    /** Try again (would block). */
    public static final int EAGAIN = 11;
    /** Out of memory. */
    public static final int ENOMEM = 12;
    /** Permission denied. */
    public static final int EACCES = 13;
    /** Bad address. */
    public static final int EFAULT = 14;
    /** Device or resource busy. */
    public static final int EBUSY = 16;
    /** File exists. */
    public static final int EEXIST = 17;
    /** Cross-device link; from openat2 with RESOLVE_BENEATH, a path that leads out. */
    public static final int EXDEV = 18;
    /** Not a directory. */
    public static final int ENOTDIR = 20;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Too many open files in the system. */
    public static final int ENFILE = 23;
    /** Too many open files in this process. */
    public static final int EMFILE = 24;
    /** No space left on device. */
    public static final int ENOSPC = 28;
    /** Broken pipe. */
    public static final int EPIPE = 32;
    /** File name too long. */
    public static final int ENAMETOOLONG = 36;
    /** Function not implemented. */
    public static final int ENOSYS = 38;
    /** Too many levels of symbolic links. */
    public static final int ELOOP = 40;
    /** Timer expired: a TIMEOUT's normal completion. */
    public static final int ETIME = 62;
    /** Operation not supported. */
    public static final int EOPNOTSUPP = 95;
    /** No buffer space: a buffer group had none left. */
    public static final int ENOBUFS = 105;
    /** Software caused connection abort: a connection reset before it was accepted. */
    public static final int ECONNABORTED = 103;
    /** Connection reset by peer. */
    public static final int ECONNRESET = 104;
    /** Connection timed out. */
    public static final int ETIMEDOUT = 110;
    /** Connection refused. */
    public static final int ECONNREFUSED = 111;
    /** Operation already in progress: a cancel found the request running. */
    public static final int EALREADY = 114;
    /** Operation canceled. */
    public static final int ECANCELED = 125;

    private static final String[] NAMES = {
        null, "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF", "ECHILD",
        "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV", "ENODEV", "ENOTDIR",
        "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS",
        "EMLINK", "EPIPE", "EDOM", "ERANGE", "EDEADLK", "ENAMETOOLONG", "ENOLCK", "ENOSYS", "ENOTEMPTY", "ELOOP",
        null, "ENOMSG", "EIDRM", "ECHRNG", "EL2NSYNC", "EL3HLT", "EL3RST", "ELNRNG", "EUNATCH", "ENOCSI",
        "EL2HLT", "EBADE", "EBADR", "EXFULL", "ENOANO", "EBADRQC", "EBADSLT", null, "EBFONT", "ENOSTR",
        "ENODATA", "ETIME", "ENOSR", "ENONET", "ENOPKG", "EREMOTE", "ENOLINK", "EADV", "ESRMNT", "ECOMM",
        "EPROTO", "EMULTIHOP", "EDOTDOT", "EBADMSG", "EOVERFLOW", "ENOTUNIQ", "EBADFD", "EREMCHG", "ELIBACC",
        "ELIBBAD", "ELIBSCN", "ELIBMAX", "ELIBEXEC", "EILSEQ", "ERESTART", "ESTRPIPE", "EUSERS", "ENOTSOCK",
        "EDESTADDRREQ", "EMSGSIZE", "EPROTOTYPE", "ENOPROTOOPT", "EPROTONOSUPPORT", "ESOCKTNOSUPPORT",
        "EOPNOTSUPP", "EPFNOSUPPORT", "EAFNOSUPPORT", "EADDRINUSE", "EADDRNOTAVAIL", "ENETDOWN", "ENETUNREACH",
        "ENETRESET", "ECONNABORTED", "ECONNRESET", "ENOBUFS", "EISCONN", "ENOTCONN", "ESHUTDOWN",
        "ETOOMANYREFS", "ETIMEDOUT", "ECONNREFUSED", "EHOSTDOWN", "EHOSTUNREACH", "EALREADY", "EINPROGRESS",
        "ESTALE", "EUCLEAN", "ENOTNAM", "ENAVAIL", "EISNAM", "EREMOTEIO", "EDQUOT", "ENOMEDIUM", "EMEDIUMTYPE",
        "ECANCELED", "ENOKEY", "EKEYEXPIRED", "EKEYREVOKED", "EKEYREJECTED", "EOWNERDEAD", "ENOTRECOVERABLE",
        "ERFKILL", "EHWPOISON",
    };

    private Errno() {
    }

    /** The symbolic name of an errno ({@code 95} or {@code -95} gives {@code EOPNOTSUPP}). */
    public static String name(int errno) {
        int e = Math.abs(errno); // negative only for Integer.MIN_VALUE, which is no errno
        String name = e >= 0 && e < NAMES.length ? NAMES[e] : null;
        return name != null ? name : "errno " + e;
    }

    /**
     * The C library's text for an errno, e.g. "Operation not supported"; its name where the native calls cannot
     * be made (the JDK backend runs then, and its failures are still described).
     */
    public static String describe(int errno) {
        try {
            return LibC.strerror(Math.abs(errno));
        } catch (LinkageError e) {
            return name(errno);
        }
    }
}
