package dev.uringactors.ring;

/** {@code IORING_CQE_F_*}: bits in a completion's {@code flags}. */
public final class CqeFlags {
    /** The upper 16 bits hold the id of the provided buffer the kernel chose. */
    public static final int F_BUFFER = 1;
    /** A multishot request will post more completions: this is not its last. */
    public static final int F_MORE = 1 << 1;
    /** The socket had more data after this receive. */
    public static final int F_SOCK_NONEMPTY = 1 << 2;
    /** A zero-copy send's notification that the buffer may be reused. */
    public static final int F_NOTIF = 1 << 3;
    /** Incremental buffer ring (6.12): the kernel keeps using this buffer; later data follows this one in it. */
    public static final int F_BUF_MORE = 1 << 4;
    /** Where the buffer id starts in the flags of a completion with {@link #F_BUFFER}. */
    public static final int BUFFER_SHIFT = 16;

    private CqeFlags() {
    }

    /** Whether this completion is the request's last one (no {@link #F_MORE}). */
    public static boolean isFinal(int flags) {
        return (flags & F_MORE) == 0;
    }

    /** The provided buffer's id, valid when {@link #F_BUFFER} is set. */
    public static int bufferId(int flags) {
        return flags >>> BUFFER_SHIFT;
    }
}
