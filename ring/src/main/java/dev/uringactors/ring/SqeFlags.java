package dev.uringactors.ring;

/** {@code IOSQE_*}: per-request flags, set with {@link Sqe#flags(int)}. */
public final class SqeFlags {
    /** {@code fd} is an index into the registered file table. */
    public static final int FIXED_FILE = 1;
    /** Start only after every earlier request has completed. */
    public static final int IO_DRAIN = 1 << 1;
    /** The next SQE starts only after this one succeeds; a failure cancels the rest of the chain. */
    public static final int IO_LINK = 1 << 2;
    /** Like IO_LINK, but the chain goes on whatever this request's result. */
    public static final int IO_HARDLINK = 1 << 3;
    /** Go straight to the io-wq worker pool, without a non-blocking first attempt. */
    public static final int ASYNC = 1 << 4;
    /** The kernel picks the buffer from the group in {@code buf_group}. */
    public static final int BUFFER_SELECT = 1 << 5;
    /** Post no CQE when the request succeeds (kernel 5.17). */
    public static final int CQE_SKIP_SUCCESS = 1 << 6;

    private SqeFlags() {
    }
}
