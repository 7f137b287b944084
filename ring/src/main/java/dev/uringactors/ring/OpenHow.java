package dev.uringactors.ring;

import java.nio.ByteBuffer;

/**
 * The {@code struct open_how} that OPENAT2 points at (24 bytes: flags u64, mode u64, resolve u64), and the
 * resolve flags that bound a path lookup. The kernel checks every step of the lookup, symlinks included, so a
 * path opened with {@link #RESOLVE_BENEATH} cannot leave its directory however it is spelt, and no check done
 * before the open can go stale before it.
 */
public final class OpenHow {
    /** Bytes of the struct, which OPENAT2 takes as its length. */
    public static final int SIZE = 24;
    /** Fail (EXDEV) when the lookup would leave the directory: "..", absolute paths and symlinks included. */
    public static final long RESOLVE_BENEATH = 0x08;
    /** Fail (ELOOP) on /proc magic links such as /proc/self/fd/N. */
    public static final long RESOLVE_NO_MAGICLINKS = 0x02;

    private OpenHow() {
    }

    /** Writes an {@code open_how} at {@code offset} of {@code buffer}; keep it until the open's completion. */
    public static void write(NativeBuffer buffer, int offset, int flags, int mode, long resolve) {
        ByteBuffer view = buffer.asByteBuffer();
        view.putLong(offset, Integer.toUnsignedLong(flags));
        view.putLong(offset + 8, mode);
        view.putLong(offset + 16, resolve);
    }
}
