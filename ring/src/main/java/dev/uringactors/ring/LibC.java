package dev.uringactors.ring;

import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * The few libc calls this module needs, bound by JNA direct mapping: a JNI stub per method, no proxy and no
 * reflection on the call path. Pointers travel as {@code long} so that no {@code Pointer} is allocated per call.
 * After a failed call, {@link Native#getLastError()} holds errno.
 */
final class LibC {
    static {
        Native.register(Platform.C_LIBRARY_NAME);
    }

    static final int PROT_READ = 0x1;
    static final int PROT_WRITE = 0x2;
    static final int MAP_SHARED = 0x01;
    static final int MAP_POPULATE = 0x08000;
    static final long MAP_FAILED = -1L;
    static final int EFD_CLOEXEC = 0x80000;
    static final int EFD_NONBLOCK = 0x800;
    static final int O_CLOEXEC = 0x80000;
    static final int O_NONBLOCK = 0x800;

    private LibC() {
    }

    // syscall(2) is variadic and direct mapping has no varargs: one overload per arity, and every argument is a
    // long so that glibc, which reads each variadic argument as 64 bits, never sees garbage in the upper half.
    static native long syscall(long number, long a1, long a2);

    static native long syscall(long number, long a1, long a2, long a3, long a4);

    static native long syscall(long number, long a1, long a2, long a3, long a4, long a5, long a6);

    static native long mmap(long addr, long length, int prot, int flags, int fd, long offset);

    static native int munmap(long addr, long length);

    static native int close(int fd);

    static native int eventfd(int initval, int flags);

    static native int pipe2(int[] fds, int flags);

    /** fcntl(2) with an int argument (F_SETPIPE_SZ and the like). */
    static native int fcntl(int fd, int cmd, int arg);

    /** statx(2) into a heap array, which JNA copies back: no native memory to allocate for the answer. */
    static native int statx(int dirfd, long path, int flags, int mask, byte[] statxBuf);

    /** statx(2) into native memory: nothing allocated on the heap. */
    static native int statx(int dirfd, long path, int flags, int mask, long statxBuf);

    static native long read(int fd, long buf, long count);

    static native long write(int fd, long buf, long count);

    static native String strerror(int errnum);

    static native int socket(int domain, int type, int protocol);

    static native int setsockopt(int fd, int level, int name, long value, int length);

    static native int getsockopt(int fd, int level, int name, long value, long length);

    static native int bind(int fd, long addr, int length);

    static native int listen(int fd, int backlog);

    static native int getsockname(int fd, long addr, long length);

    static native int getpeername(int fd, long addr, long length);

    /** sched_setscheduler(2); {@code param} is a struct sched_param, one int: the priority. */
    static native int sched_setscheduler(int pid, int policy, int[] param);

    static native int prctl(int option, long arg2, long arg3, long arg4, long arg5);

    /** errno of the last failed call on this thread, negated the way the kernel reports it in a CQE. */
    static int negErrno() {
        return -Native.getLastError();
    }
}
