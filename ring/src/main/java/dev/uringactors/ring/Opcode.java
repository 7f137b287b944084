package dev.uringactors.ring;

/**
 * {@code IORING_OP_*}, in the kernel's order: {@code ordinal()} is the opcode. Opcodes newer than the last one
 * listed are still reported by the probe, by number.
 */
public enum Opcode {
    NOP, READV, WRITEV, FSYNC, READ_FIXED, WRITE_FIXED, POLL_ADD, POLL_REMOVE, SYNC_FILE_RANGE, SENDMSG, RECVMSG,
    TIMEOUT, TIMEOUT_REMOVE, ACCEPT, ASYNC_CANCEL, LINK_TIMEOUT, CONNECT, FALLOCATE, OPENAT, CLOSE, FILES_UPDATE,
    STATX, READ, WRITE, FADVISE, MADVISE, SEND, RECV, OPENAT2, EPOLL_CTL, SPLICE, PROVIDE_BUFFERS, REMOVE_BUFFERS,
    TEE, SHUTDOWN, RENAMEAT, UNLINKAT, MKDIRAT, SYMLINKAT, LINKAT, MSG_RING, FSETXATTR, SETXATTR, FGETXATTR,
    GETXATTR, SOCKET, URING_CMD, SEND_ZC, SENDMSG_ZC, READ_MULTISHOT, WAITID, FUTEX_WAIT, FUTEX_WAKE, FUTEX_WAITV,
    FIXED_FD_INSTALL, FTRUNCATE, BIND, LISTEN;

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
