package dev.uringactors.ring;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A seccomp filter that fails some x86_64 system calls with an errno, as a hardened host or a container's
 * profile does: on the calling thread (and the threads it starts later), or on every thread of the process.
 * Each method returns null once the filter is in, else why it could not be had (another architecture, seccomp
 * refused), for the caller to skip on.
 */
public final class SeccompFilter {
    /** x86_64's number of io_uring_setup(2). */
    public static final int IO_URING_SETUP = 425;
    private static final long SYS_PRCTL = 157;
    private static final long SYS_SECCOMP = 317;
    private static final long PR_SET_NO_NEW_PRIVS = 38;
    private static final long PR_SET_SECCOMP = 22;
    private static final long SECCOMP_MODE_FILTER = 2;
    private static final long SECCOMP_SET_MODE_FILTER = 1;
    private static final long SECCOMP_FILTER_FLAG_TSYNC = 1;
    private static final int AUDIT_ARCH_X86_64 = 0xc000003e;
    private static final int SECCOMP_RET_ALLOW = 0x7fff0000;
    private static final int SECCOMP_RET_ERRNO = 0x00050000;
    private static final short LD_W_ABS = 0x20;
    private static final short JEQ_K = 0x15;
    private static final short JSET_K = 0x45;
    private static final short RET_K = 0x06;
    /** Where {@code seccomp_data.args} begin: 8 bytes each, the low word first. */
    private static final int ARGS = 16;

    /** A call to let through all the same when its argument {@code arg} (0-based) has any of {@code bits} set. */
    public record Unless(int syscall, int arg, int bits) {
    }

    private SeccompFilter() {
    }

    /** Fails {@code syscalls} with {@code errno} on the calling thread; null, or why it could not. */
    public static String refuseOnThisThread(int errno, int... syscalls) {
        return install(false, errno, null, syscalls);
    }

    /** As {@link #refuseOnThisThread(int, int...)}, letting one call through when its flags say so. */
    public static String refuseOnThisThread(int errno, Unless unless, int... syscalls) {
        return install(false, errno, unless, syscalls);
    }

    /** Fails {@code syscalls} with {@code errno} on every thread of this process (TSYNC); null, or why not. */
    public static String refuseInThisProcess(int errno, int... syscalls) {
        return install(true, errno, null, syscalls);
    }

    private static String install(boolean everyThread, int errno, Unless unless, int... syscalls) {
        if (!System.getProperty("os.arch").equals("amd64")) {
            return "the filter names x86_64 system calls, this is " + System.getProperty("os.arch");
        }
        try (NativeBuffer filter = program(errno, unless, syscalls); NativeBuffer fprog = NativeBuffer.allocate(16)) {
            fprog.putLong(0, filter.size() / 8); // unsigned short len, then the pointer at 8
            fprog.putLong(8, filter.address());
            // prctl checks that the arguments it does not take are 0: pass all five.
            if (LibC.syscall(SYS_PRCTL, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0) != 0) {
                return "no_new_privs refused: " + Errno.name(LibC.negErrno());
            }
            long res = everyThread
                    ? LibC.syscall(SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, fprog.address(), 0)
                    : LibC.syscall(SYS_PRCTL, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog.address(), 0, 0, 0);
            return res == 0 ? null : "seccomp filter refused: " + (res > 0 ? "thread " + res + " could not take it"
                    : Errno.name(LibC.negErrno()));
        }
    }

    /**
     * Allow another architecture's calls; on x86_64 fail {@code syscalls} with {@code errno}, except the call
     * {@code unless} names when its flags say so, and allow the rest. The check of {@code unless} follows the two
     * returns, with two of its own, as BPF jumps only forward.
     */
    private static NativeBuffer program(int errno, Unless unless, int... syscalls) {
        int checks = unless == null ? 0 : 4;
        int count = 5 + syscalls.length + checks;
        int allow = count - 2 - checks;
        int deny = allow + 1;
        NativeBuffer buffer = NativeBuffer.allocate(8L * count);
        ByteBuffer code = buffer.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        put(code, LD_W_ABS, 0, 0, 4); // seccomp_data.arch
        put(code, JEQ_K, 0, allow - 2, AUDIT_ARCH_X86_64);
        put(code, LD_W_ABS, 0, 0, 0); // seccomp_data.nr
        for (int nr : syscalls) {
            int next = code.position() / 8 + 1;
            put(code, JEQ_K, (unless != null && unless.syscall() == nr ? deny + 1 : deny) - next, 0, nr);
        }
        put(code, RET_K, 0, 0, SECCOMP_RET_ALLOW);
        put(code, RET_K, 0, 0, SECCOMP_RET_ERRNO | errno);
        if (unless != null) {
            put(code, LD_W_ABS, 0, 0, ARGS + 8 * unless.arg()); // the argument's low word
            put(code, JSET_K, 0, 1, unless.bits());
            put(code, RET_K, 0, 0, SECCOMP_RET_ALLOW);
            put(code, RET_K, 0, 0, SECCOMP_RET_ERRNO | errno);
        }
        return buffer;
    }

    /** One {@code struct sock_filter}: code, jump if true, jump if false (relative to the next), constant. */
    private static void put(ByteBuffer code, short op, int jumpTrue, int jumpFalse, int k) {
        code.putShort(op).put((byte) jumpTrue).put((byte) jumpFalse).putInt(k);
    }
}
