package dev.uringactors.ring;

import java.util.Optional;

/**
 * A failed io_uring call or request: the errno by name, the operation (a system call, or an op and its target),
 * and, where one helps, a hint at the usual cause.
 */
public class UringException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The errno, positive. */
    private final int errno;
    /** The system call, or the op and its target. */
    private final String operation;
    /** What usually causes this errno here, or null. */
    private final String hint;

    /** An exception for {@code errno} (either sign) from {@code operation}, with a hint or null. */
    public UringException(String operation, int errno, String hint) {
        super(message(operation, errno, hint));
        this.errno = Math.abs(errno);
        this.operation = operation;
        this.hint = hint;
    }

    /**
     * The exception for a negative completion result.
     *
     * @param target what the op worked on (a path, an address, "fd 7"), or null
     * @param ringFlags the ring's setup flags ({@link Ring#setupFlags()}), which some hints depend on
     */
    public static UringException ofResult(Opcode op, int res, String target, int ringFlags) {
        String operation = target == null ? op.name() : op.name() + " " + target;
        return new UringException(operation, res, ErrorHints.forResult(op, -res, target, ringFlags));
    }

    /** The positive errno, e.g. 95. */
    public int errno() {
        return errno;
    }

    /** The symbolic errno, e.g. "EOPNOTSUPP". */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** The system call, or the op and its target, that failed. */
    public String operation() {
        return operation;
    }

    /** What usually causes this errno here, if known. */
    public Optional<String> hint() {
        return Optional.ofNullable(hint);
    }

    private static String message(String operation, int errno, String hint) {
        String base = operation + ": " + Errno.name(errno) + " (" + Errno.describe(errno) + ")";
        return hint == null ? base : base + ". " + hint;
    }
}
