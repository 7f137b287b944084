package dev.uringactors.ring;

import java.nio.ByteBuffer;

/**
 * One submission queue entry, as handed out by {@link Ring#nextSqe()}: a reused view, valid until the next call
 * to {@code nextSqe()}. Apply exactly one {@code prep*} method (it sets every field), then the optional setters.
 * The prep methods follow liburing's {@code io_uring_prep_*}: same names, same arguments, one op each. Every
 * address is native memory that must stay valid until the request's final completion.
 *
 * <p>Layout (64 bytes): opcode u8 @0, flags u8 @1, ioprio u16 @2, fd s32 @4, off/addr2 u64 @8, addr u64 @16,
 * len u32 @24, op flags u32 @28, user_data u64 @32, buf_index/buf_group u16 @40, personality u16 @42,
 * splice_fd_in/file_index s32 @44, addr3 u64 @48, pad u64 @56.
 */
public final class Sqe {
    private final ByteBuffer sqes;
    private final SubmissionQueue queue;
    private int at;

    Sqe(ByteBuffer sqes, SubmissionQueue queue) {
        this.sqes = sqes;
        this.queue = queue;
    }

    void moveTo(int offset) {
        at = offset;
        sqes.put(at + 1, (byte) 0); // no flags left from the SQE's last use: flags() counts what it changes
    }

    /** Fills every field of the SQE for a plain request; the base of every other prep method. */
    public Sqe prepRw(Opcode op, int fd, long addr, int len, long offset) {
        ByteBuffer b = sqes;
        int p = at;
        b.putLong(p, op.code() | ((long) fd << 32));
        b.putLong(p + 8, offset);
        b.putLong(p + 16, addr);
        b.putLong(p + 24, Integer.toUnsignedLong(len));
        b.putLong(p + 32, 0);
        b.putLong(p + 40, 0);
        b.putLong(p + 48, 0);
        b.putLong(p + 56, 0);
        return this;
    }

    /** Does nothing and completes with 0: measures the ring itself. */
    public Sqe prepNop() {
        return prepRw(Opcode.NOP, -1, 0, 0, 0);
    }

    /** pread(2) of {@code len} bytes at {@code offset} into {@code buf}; offset -1 reads at the file position. */
    public Sqe prepRead(int fd, long buf, int len, long offset) {
        return prepRw(Opcode.READ, fd, buf, len, offset);
    }

    /** write(2) at {@code offset} (-1: the file position). */
    public Sqe prepWrite(int fd, long buf, int len, long offset) {
        return prepRw(Opcode.WRITE, fd, buf, len, offset);
    }

    /** preadv(2): {@code iovecs} points at {@code count} {@code struct iovec} (16 bytes each). */
    public Sqe prepReadv(int fd, long iovecs, int count, long offset) {
        return prepRw(Opcode.READV, fd, iovecs, count, offset);
    }

    /** writev(2) of {@code count} iovecs at {@code offset}. */
    public Sqe prepWritev(int fd, long iovecs, int count, long offset) {
        return prepRw(Opcode.WRITEV, fd, iovecs, count, offset);
    }

    /** A read into registered buffer {@code bufIndex}; {@code buf} must lie inside it. */
    public Sqe prepReadFixed(int fd, long buf, int len, long offset, int bufIndex) {
        return prepRw(Opcode.READ_FIXED, fd, buf, len, offset).bufIndex(bufIndex);
    }

    /** write(2) from registered buffer {@code bufIndex}. */
    public Sqe prepWriteFixed(int fd, long buf, int len, long offset, int bufIndex) {
        return prepRw(Opcode.WRITE_FIXED, fd, buf, len, offset).bufIndex(bufIndex);
    }

    /** openat(2): {@code path} is a NUL-terminated string ({@link NativeBuffer#ofString}); completes with the fd. */
    public Sqe prepOpenat(int dirfd, long path, int flags, int mode) {
        return prepRw(Opcode.OPENAT, dirfd, path, mode, 0).opFlags(flags);
    }

    /** openat(2) into registered-file slot {@code slot}, or a free one with {@link OpFlags#FILE_INDEX_ALLOC}. */
    public Sqe prepOpenatDirect(int dirfd, long path, int flags, int mode, int slot) {
        return prepOpenat(dirfd, path, flags, mode).fileIndex(slot == OpFlags.FILE_INDEX_ALLOC ? slot : slot + 1);
    }

    /**
     * openat2(2): {@code how} points at a {@code struct open_how} ({@link OpenHow}), whose resolve flags can keep
     * the lookup beneath {@code dirfd} (5.6); completes with the fd.
     */
    public Sqe prepOpenat2(int dirfd, long path, long how) {
        return prepRw(Opcode.OPENAT2, dirfd, path, OpenHow.SIZE, how);
    }

    /** close(2) of a plain fd. */
    public Sqe prepClose(int fd) {
        return prepRw(Opcode.CLOSE, fd, 0, 0, 0);
    }

    /** Closes registered-file slot {@code slot}. */
    public Sqe prepCloseDirect(int slot) {
        return prepClose(0).fileIndex(slot + 1);
    }

    /** statx(2) into {@code statxBuf} (256 bytes). */
    public Sqe prepStatx(int dirfd, long path, int flags, int mask, long statxBuf) {
        return prepRw(Opcode.STATX, dirfd, path, mask, statxBuf).opFlags(flags);
    }

    /** fsync(2), or fdatasync(2) with {@link OpFlags#FSYNC_DATASYNC}. */
    public Sqe prepFsync(int fd, int flags) {
        return prepRw(Opcode.FSYNC, fd, 0, 0, 0).opFlags(flags);
    }

    /**
     * Completes with -ETIME when the timespec at {@code ts} has passed, or with 0 once {@code count} other
     * requests have completed (0 = time only).
     */
    public Sqe prepTimeout(long ts, int count, int flags) {
        return prepRw(Opcode.TIMEOUT, -1, ts, 1, count).opFlags(flags);
    }

    /** Cancels the SQE linked before this one (IO_LINK) if it has not completed by the timespec at {@code ts}. */
    public Sqe prepLinkTimeout(long ts, int flags) {
        return prepRw(Opcode.LINK_TIMEOUT, -1, ts, 1, 0).opFlags(flags);
    }

    /** Cancels the TIMEOUT whose user data is {@code userData}. */
    public Sqe prepTimeoutRemove(long userData, int flags) {
        return prepRw(Opcode.TIMEOUT_REMOVE, -1, userData, 0, 0).opFlags(flags);
    }

    /** Cancels the request carrying {@code userData}, or others chosen by {@link OpFlags} ASYNC_CANCEL_* bits. */
    public Sqe prepCancel(long userData, int flags) {
        return prepRw(Opcode.ASYNC_CANCEL, -1, userData, 0, 0).opFlags(flags);
    }

    /** Cancels requests on {@code fd}. */
    public Sqe prepCancelFd(int fd, int flags) {
        return prepRw(Opcode.ASYNC_CANCEL, fd, 0, 0, 0).opFlags(flags | OpFlags.ASYNC_CANCEL_FD);
    }

    /** Completes once with the ready {@code events} mask ({@link OpFlags} POLL*). */
    public Sqe prepPollAdd(int fd, int events) {
        return prepRw(Opcode.POLL_ADD, fd, 0, 0, 0).opFlags(events);
    }

    /** Stays armed: a CQE with F_MORE per readiness event, until cancelled or an error. */
    public Sqe prepPollMultishot(int fd, int events) {
        return prepRw(Opcode.POLL_ADD, fd, 0, OpFlags.POLL_ADD_MULTI, 0).opFlags(events);
    }

    /** Cancels the POLL_ADD whose user data is {@code userData}. */
    public Sqe prepPollRemove(long userData) {
        return prepRw(Opcode.POLL_REMOVE, -1, userData, 0, 0);
    }

    /**
     * Posts a CQE with {@code res} and {@code userData} on the ring {@code ringFd}: a message between rings. The
     * receiving ring sees {@code userData} with {@link UserData#MESSAGE} set, so that it does not take the message
     * for the completion of one of its own requests.
     */
    public Sqe prepMsgRing(int ringFd, int res, long userData, int flags) {
        UserData.check(userData);
        // addr 0 = IORING_MSG_DATA; off = the user_data the target ring sees
        return prepRw(Opcode.MSG_RING, ringFd, 0, res, userData | UserData.MESSAGE).opFlags(flags);
    }

    /** socket(2); completes with the new fd. */
    public Sqe prepSocket(int domain, int type, int protocol, int flags) {
        return prepRw(Opcode.SOCKET, domain, 0, protocol, type).opFlags(flags);
    }

    /**
     * accept4(2) on listening socket {@code fd}; {@code addr}/{@code addrLen} (a u32 holding the buffer's size)
     * receive the peer's address, or are 0. Completes with the new fd.
     */
    public Sqe prepAccept(int fd, long addr, long addrLen, int flags) {
        return prepRw(Opcode.ACCEPT, fd, addr, 0, addrLen).opFlags(flags);
    }

    /** One SQE, one CQE per accepted connection while F_MORE is set (5.19); no peer address. */
    public Sqe prepMultishotAccept(int fd, int flags) {
        return prepAccept(fd, 0, 0, flags).ioprio(OpFlags.ACCEPT_MULTISHOT);
    }

    /** As {@link #prepMultishotAccept}, into free registered-file slots: each CQE carries a slot, not an fd. */
    public Sqe prepMultishotAcceptDirect(int fd, int flags) {
        return prepMultishotAccept(fd, flags).fileIndex(OpFlags.FILE_INDEX_ALLOC);
    }

    /** connect(2) to the sockaddr at {@code addr}. */
    public Sqe prepConnect(int fd, long addr, int addrLen) {
        return prepRw(Opcode.CONNECT, fd, addr, 0, addrLen);
    }

    /** recv(2) into {@code buf}; completes with the bytes received, 0 when the peer has shut down. */
    public Sqe prepRecv(int fd, long buf, int len, int flags) {
        return prepRw(Opcode.RECV, fd, buf, len, 0).opFlags(flags);
    }

    /**
     * Multishot recv (6.0): each CQE carries data in a buffer the kernel took from provided-buffer group
     * {@code group} (its id in the CQE flags), F_MORE while armed; it ends with -ENOBUFS when the group is empty.
     */
    public Sqe prepRecvMultishot(int fd, int group, int flags) {
        return prepRecvMultishot(fd, group, flags, 0);
    }

    /**
     * As {@link #prepRecvMultishot(int, int, int)}, ending (a final CQE with data) at the first completion that
     * brings what it received to {@code limit} bytes or more (each takes up to a whole buffer), 0 for no limit.
     * The limit is {@code sqe->optlen}, which Linux 6.17 reads; earlier kernels refuse a recv that sets it with
     * EINVAL (the field is their {@code file_index}, which must be 0).
     */
    public Sqe prepRecvMultishot(int fd, int group, int flags, int limit) {
        return prepRw(Opcode.RECV, fd, 0, 0, 0).opFlags(flags).ioprio(OpFlags.RECV_MULTISHOT)
                .flags(SqeFlags.BUFFER_SELECT).bufGroup(group).fileIndex(limit);
    }

    /** send(2) of {@code len} bytes at {@code buf}; pass {@link OpFlags#MSG_NOSIGNAL}. */
    public Sqe prepSend(int fd, long buf, int len, int flags) {
        return prepRw(Opcode.SEND, fd, buf, len, 0).opFlags(flags);
    }

    /** sendmsg(2) of the {@code struct msghdr} at {@code msg}. */
    public Sqe prepSendmsg(int fd, long msg, int flags) {
        return prepRw(Opcode.SENDMSG, fd, msg, 1, 0).opFlags(flags);
    }

    /**
     * Zero-copy send (6.0): a first CQE with the result (F_MORE set), then a notification CQE (F_NOTIF) once the
     * kernel no longer reads {@code buf}. Keep the buffer until the notification.
     */
    public Sqe prepSendZc(int fd, long buf, int len, int flags, int zcFlags) {
        return prepRw(Opcode.SEND_ZC, fd, buf, len, 0).opFlags(flags).ioprio(zcFlags);
    }

    /** shutdown(2): {@link OpFlags#SHUT_RD}, SHUT_WR or SHUT_RDWR. */
    /**
     * splice(2) of up to {@code nbytes} from {@code fdIn} to {@code fdOut}, one of which is a pipe; an offset of
     * -1 means the file's own position (a pipe has none). The kernel always runs it in a worker thread.
     */
    public Sqe prepSplice(int fdIn, long offIn, int fdOut, long offOut, int nbytes, int spliceFlags) {
        return prepRw(Opcode.SPLICE, fdOut, offIn, nbytes, offOut).opFlags(spliceFlags).fileIndex(fdIn);
    }

    /** shutdown(2), {@code how} one of OpFlags.SHUT_*. */
    public Sqe prepShutdown(int fd, int how) {
        return prepRw(Opcode.SHUTDOWN, fd, 0, how, 0);
    }

    /** The request's user_data: any value up to {@link UserData#MAX}; the two bits above are the ring's. */
    public Sqe userData(long userData) {
        UserData.check(userData);
        boolean skip = (sqes.get(at + 1) & SqeFlags.CQE_SKIP_SUCCESS) != 0;
        sqes.putLong(at + 32, skip ? userData | UserData.SKIP_SUCCESS : userData);
        return this;
    }

    /**
     * Sets the {@link SqeFlags} bits (replacing any set before). A request with CQE_SKIP_SUCCESS is not counted
     * in flight; its user_data is tagged so that the CQE it posts if it fails is not counted as another's end.
     */
    public Sqe flags(int flags) {
        boolean before = (sqes.get(at + 1) & SqeFlags.CQE_SKIP_SUCCESS) != 0;
        boolean after = (flags & SqeFlags.CQE_SKIP_SUCCESS) != 0;
        if (before != after) {
            queue.skipSuccess += after ? 1 : -1;
            long userData = sqes.getLong(at + 32);
            sqes.putLong(at + 32, after ? userData | UserData.SKIP_SUCCESS : userData & ~UserData.SKIP_SUCCESS);
        }
        sqes.put(at + 1, (byte) flags);
        return this;
    }

    /** Adds {@code flags} to the {@link SqeFlags} bits set already: a chain's link to the SQE after it, say. */
    public Sqe addFlags(int flags) {
        return flags((sqes.get(at + 1) & 0xff) | flags);
    }

    /** The I/O priority (ioprio_set(2) values); for RECV and SEND, their IORING_RECVSEND_* flags. */
    public Sqe ioprio(int ioprio) {
        sqes.putShort(at + 2, (short) ioprio);
        return this;
    }

    /** The op-specific flags word (rw_flags, open_flags, timeout_flags, poll32_events...). */
    public Sqe opFlags(int flags) {
        sqes.putInt(at + 28, flags);
        return this;
    }

    /** The registered buffer (READ_FIXED, WRITE_FIXED) or buffer group (with BUFFER_SELECT). */
    public Sqe bufIndex(int index) {
        sqes.putShort(at + 40, (short) index);
        return this;
    }

    /** The provided-buffer group to pick from, with {@link SqeFlags#BUFFER_SELECT}. */
    public Sqe bufGroup(int group) {
        return bufIndex(group);
    }

    /** The raw {@code file_index} field (1-based slot, or {@link OpFlags#FILE_INDEX_ALLOC}). */
    public Sqe fileIndex(int fileIndex) {
        sqes.putInt(at + 44, fileIndex);
        return this;
    }

    /** The third address some ops take. */
    public Sqe addr3(long addr3) {
        sqes.putLong(at + 48, addr3);
        return this;
    }
}
