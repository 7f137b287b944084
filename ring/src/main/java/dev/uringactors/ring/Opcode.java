package dev.uringactors.ring;

/**
 * {@code IORING_OP_*}, in the kernel's order: {@code ordinal()} is the opcode. Opcodes newer than the last one
 * listed are still reported by the probe, by number.
 */
public enum Opcode {
    /** Does nothing: a round trip through the ring; Linux 5.1. */
    NOP,
    /** readv(2); Linux 5.1. */
    READV,
    /** writev(2); Linux 5.1. */
    WRITEV,
    /** fsync(2), or fdatasync(2) with a flag; Linux 5.1. */
    FSYNC,
    /** read(2) into a registered buffer; Linux 5.1. */
    READ_FIXED,
    /** write(2) from a registered buffer; Linux 5.1. */
    WRITE_FIXED,
    /** Waits for poll events on an fd; Linux 5.1. */
    POLL_ADD,
    /** cancels a POLL_ADD; Linux 5.1. */
    POLL_REMOVE,
    /** sync_file_range(2); Linux 5.2. */
    SYNC_FILE_RANGE,
    /** sendmsg(2); Linux 5.3. */
    SENDMSG,
    /** recvmsg(2); Linux 5.3. */
    RECVMSG,
    /** Completes after a time, or after a number of completions; Linux 5.4. */
    TIMEOUT,
    /** cancels or updates a TIMEOUT; Linux 5.5. */
    TIMEOUT_REMOVE,
    /** accept4(2); multishot since 5.19; Linux 5.5. */
    ACCEPT,
    /** Cancels requests by user data, or by fd; Linux 5.5. */
    ASYNC_CANCEL,
    /** A deadline for the request linked before it; Linux 5.5. */
    LINK_TIMEOUT,
    /** connect(2); Linux 5.5. */
    CONNECT,
    /** fallocate(2); Linux 5.6. */
    FALLOCATE,
    /** openat(2); Linux 5.6. */
    OPENAT,
    /** close(2); Linux 5.6. */
    CLOSE,
    /** Updates the registered file table; Linux 5.6. */
    FILES_UPDATE,
    /** statx(2); Linux 5.6. */
    STATX,
    /** read(2), pread(2) with an offset; Linux 5.6. */
    READ,
    /** write(2), pwrite(2) with an offset; Linux 5.6. */
    WRITE,
    /** posix_fadvise(2); Linux 5.6. */
    FADVISE,
    /** madvise(2); Linux 5.6. */
    MADVISE,
    /** send(2); Linux 5.6. */
    SEND,
    /** recv(2); from a provided buffer group if asked; Linux 5.6. */
    RECV,
    /** openat2(2), with its RESOLVE_* rules; Linux 5.6. */
    OPENAT2,
    /** epoll_ctl(2); Linux 5.6. */
    EPOLL_CTL,
    /** splice(2); Linux 5.7. */
    SPLICE,
    /** Gives buffers to a group (the older way; buffer rings are 5.19); Linux 5.7. */
    PROVIDE_BUFFERS,
    /** Takes buffers back from a group; Linux 5.7. */
    REMOVE_BUFFERS,
    /** tee(2); Linux 5.8. */
    TEE,
    /** shutdown(2); Linux 5.11. */
    SHUTDOWN,
    /** renameat2(2); Linux 5.11. */
    RENAMEAT,
    /** unlinkat(2); Linux 5.11. */
    UNLINKAT,
    /** mkdirat(2); Linux 5.15. */
    MKDIRAT,
    /** symlinkat(2); Linux 5.15. */
    SYMLINKAT,
    /** linkat(2); Linux 5.15. */
    LINKAT,
    /** Posts a completion to another ring; Linux 5.18. */
    MSG_RING,
    /** fsetxattr(2); Linux 5.19. */
    FSETXATTR,
    /** setxattr(2); Linux 5.19. */
    SETXATTR,
    /** fgetxattr(2); Linux 5.19. */
    FGETXATTR,
    /** getxattr(2); Linux 5.19. */
    GETXATTR,
    /** socket(2); Linux 5.19. */
    SOCKET,
    /** A command for the file's driver (NVMe passthrough, socket options); Linux 5.19. */
    URING_CMD,
    /** send(2) without copying: a second completion says when the buffer is free; Linux 6.0. */
    SEND_ZC,
    /** sendmsg(2) without copying; Linux 6.1. */
    SENDMSG_ZC,
    /** Reads as data arrives, one completion per read, from a buffer group; Linux 6.7. */
    READ_MULTISHOT,
    /** waitid(2); Linux 6.7. */
    WAITID,
    /** Futex wait; Linux 6.7. */
    FUTEX_WAIT,
    /** Futex wake; Linux 6.7. */
    FUTEX_WAKE,
    /** futex_waitv(2); Linux 6.7. */
    FUTEX_WAITV,
    /** Turns a registered file into a plain fd; Linux 6.8. */
    FIXED_FD_INSTALL,
    /** ftruncate(2); Linux 6.9. */
    FTRUNCATE,
    /** bind(2); Linux 6.11. */
    BIND,
    /** listen(2); Linux 6.11. */
    LISTEN;

    private static final Opcode[] BY_CODE = values();

    /** The opcode as the SQE carries it. */
    public int code() {
        return ordinal();
    }

    /** The name of an opcode, or {@code "opcode N"} for one newer than this enum. */
    public static String nameOf(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code].name() : "opcode " + code;
    }
}
