package dev.uringactors.ring;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

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
    /** No such device or address. */
    public static final int ENXIO = 6;
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
    /** No such device. */
    public static final int ENODEV = 19;
    /** Not a directory. */
    public static final int ENOTDIR = 20;
    /** Is a directory. */
    public static final int EISDIR = 21;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Too many open files in the system. */
    public static final int ENFILE = 23;
    /** Too many open files in this process. */
    public static final int EMFILE = 24;
    /** Text file busy. */
    public static final int ETXTBSY = 26;
    /** File too large. */
    public static final int EFBIG = 27;
    /** No space left on device. */
    public static final int ENOSPC = 28;
    /** Illegal seek: a positional call on a file with no position (a pipe). */
    public static final int ESPIPE = 29;
    /** Read-only file system. */
    public static final int EROFS = 30;
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
    /** Value too large for defined data type. */
    public static final int EOVERFLOW = 75;
    /** Operation not supported. */
    public static final int EOPNOTSUPP = 95;
    /** Address already in use. */
    public static final int EADDRINUSE = 98;
    /** Cannot assign requested address. */
    public static final int EADDRNOTAVAIL = 99;
    /** Network is unreachable. */
    public static final int ENETUNREACH = 101;
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
    /** No route to host. */
    public static final int EHOSTUNREACH = 113;
    /** Operation already in progress: a cancel found the request running. */
    public static final int EALREADY = 114;
    /** Stale file handle. */
    public static final int ESTALE = 116;
    /** Disk quota exceeded. */
    public static final int EDQUOT = 122;
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

    /**
     * glibc's strerror text of each errno named here; {@link #ofDescription} finds the errno by it, longest text
     * first (one may begin another: "Too many open files" and "Too many open files in system").
     */
    private static final List<Map.Entry<Integer, String>> DESCRIPTIONS = Map.ofEntries(
            Map.entry(EPERM, "Operation not permitted"),
            Map.entry(ENOENT, "No such file or directory"),
            Map.entry(EINTR, "Interrupted system call"),
            Map.entry(EIO, "Input/output error"),
            Map.entry(ENXIO, "No such device or address"),
            Map.entry(EBADF, "Bad file descriptor"),
            Map.entry(EAGAIN, "Resource temporarily unavailable"),
            Map.entry(ENOMEM, "Cannot allocate memory"),
            Map.entry(EACCES, "Permission denied"),
            Map.entry(EFAULT, "Bad address"),
            Map.entry(EBUSY, "Device or resource busy"),
            Map.entry(EEXIST, "File exists"),
            Map.entry(EXDEV, "Invalid cross-device link"),
            Map.entry(ENODEV, "No such device"),
            Map.entry(ENOTDIR, "Not a directory"),
            Map.entry(EISDIR, "Is a directory"),
            Map.entry(EINVAL, "Invalid argument"),
            Map.entry(ENFILE, "Too many open files in system"),
            Map.entry(EMFILE, "Too many open files"),
            Map.entry(ETXTBSY, "Text file busy"),
            Map.entry(EFBIG, "File too large"),
            Map.entry(ENOSPC, "No space left on device"),
            Map.entry(ESPIPE, "Illegal seek"),
            Map.entry(EROFS, "Read-only file system"),
            Map.entry(EPIPE, "Broken pipe"),
            Map.entry(ENAMETOOLONG, "File name too long"),
            Map.entry(ENOSYS, "Function not implemented"),
            Map.entry(ELOOP, "Too many levels of symbolic links"),
            Map.entry(ETIME, "Timer expired"),
            Map.entry(EOVERFLOW, "Value too large for defined data type"),
            Map.entry(EOPNOTSUPP, "Operation not supported"),
            Map.entry(EADDRINUSE, "Address already in use"),
            Map.entry(EADDRNOTAVAIL, "Cannot assign requested address"),
            Map.entry(ENETUNREACH, "Network is unreachable"),
            Map.entry(ECONNABORTED, "Software caused connection abort"),
            Map.entry(ECONNRESET, "Connection reset by peer"),
            Map.entry(ENOBUFS, "No buffer space available"),
            Map.entry(ETIMEDOUT, "Connection timed out"),
            Map.entry(ECONNREFUSED, "Connection refused"),
            Map.entry(EHOSTUNREACH, "No route to host"),
            Map.entry(EALREADY, "Operation already in progress"),
            Map.entry(ESTALE, "Stale file handle"),
            Map.entry(EDQUOT, "Disk quota exceeded"),
            Map.entry(ECANCELED, "Operation canceled")).entrySet().stream()
            .sorted(Comparator.comparingInt((Map.Entry<Integer, String> e) -> e.getValue().length()).reversed())
            .toList();

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

    /**
     * The errno whose C library text (glibc's strerror, as {@link #describe} gives it) {@code text} begins with,
     * e.g. 40 for "Too many levels of symbolic links" or 111 for "Connection refused (connect failed)"; 0 if it
     * begins with none of the texts of the errnos named here, or is null. The JDK keeps the errno of its failures
     * to itself but puts that text in their messages: this finds the errno again.
     */
    public static int ofDescription(String text) {
        if (text == null) {
            return 0;
        }
        for (Map.Entry<Integer, String> e : DESCRIPTIONS) {
            if (text.startsWith(e.getValue())) {
                return e.getKey();
            }
        }
        return 0;
    }
}
