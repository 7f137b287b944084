package dev.uringactors.ring;

import com.sun.jna.Native;
import com.sun.jna.Pointer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Native memory outside the Java heap, for what an SQE points at: I/O buffers, paths, iovecs, timespecs. The GC
 * never moves it, so its address stays valid while the kernel works on it; {@link #close()} frees it at once.
 * The owner must keep it until the final completion of every request that points into it.
 */
public final class NativeBuffer implements AutoCloseable {
    /** Bytes of native memory allocated through this class and not yet freed, in the whole JVM. */
    private static final AtomicLong LIVE_BYTES = new AtomicLong();

    private final long base;
    private final long allocated;
    private final long address;
    private final long size;
    private final Pointer pointer;
    private ByteBuffer view;
    /** The read-only view {@link #lentView} hands out, made at its first. */
    private ByteBuffer lent;
    private boolean freed;

    private NativeBuffer(long size, int alignment) {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        if (Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two: " + alignment);
        }
        this.allocated = size + alignment - 1;
        this.base = Native.malloc(allocated);
        if (base == 0) {
            throw new OutOfMemoryError("malloc(" + allocated + ") failed");
        }
        LIVE_BYTES.addAndGet(allocated);
        this.address = (base + alignment - 1) & -(long) alignment;
        this.size = size;
        this.pointer = new Pointer(address);
        pointer.setMemory(0, size, (byte) 0);
    }

    /** {@code size} zeroed bytes. */
    public static NativeBuffer allocate(long size) {
        return new NativeBuffer(size, 16);
    }

    /** {@code size} zeroed bytes at an address that is a multiple of {@code alignment} (4096 for O_DIRECT). */
    public static NativeBuffer allocateAligned(long size, int alignment) {
        return new NativeBuffer(size, alignment);
    }

    /** A NUL-terminated UTF-8 copy of {@code s}: what OPENAT and STATX take as a path. */
    public static NativeBuffer ofString(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        NativeBuffer b = allocate(bytes.length + 1L);
        b.pointer.write(0, bytes, 0, bytes.length);
        return b;
    }

    /** A {@code struct __kernel_timespec} holding {@code d}: what TIMEOUT and LINK_TIMEOUT point at. */
    public static NativeBuffer timespec(Duration d) {
        NativeBuffer b = allocate(16);
        b.putLong(0, d.getSeconds());
        b.putLong(8, d.getNano());
        return b;
    }

    /** The address of the first byte, for an SQE. */
    public long address() {
        checkLive();
        return address;
    }

    /** The size in bytes. */
    public long size() {
        return size;
    }

    /** A direct little-endian view of the whole buffer (the same one each time); valid until {@link #close()}. */
    public ByteBuffer asByteBuffer() {
        checkLive();
        if (view == null) {
            view = pointer.getByteBuffer(0, size).order(ByteOrder.LITTLE_ENDIAN);
        }
        return view;
    }

    /**
     * A read-only view of the first {@code length} bytes, to lend to code that must not keep it: the same view
     * each time, its position 0 and its limit {@code length}; big-endian, as any new view is.
     */
    public ByteBuffer lentView(int length) {
        checkLive();
        if (lent == null) {
            lent = asByteBuffer().asReadOnlyBuffer();
        }
        return lent.clear().limit(length);
    }

    /** Writes a native-order long at {@code offset}. */
    public void putLong(long offset, long value) {
        checkLive();
        pointer.setLong(offset, value);
    }

    /** Reads a native-order long at {@code offset}. */
    public long getLong(long offset) {
        checkLive();
        return pointer.getLong(offset);
    }

    /** Writes a native-order int at {@code offset}. */
    public void putInt(long offset, int value) {
        checkLive();
        pointer.setInt(offset, value);
    }

    /** Reads a native-order int at {@code offset}. */
    public int getInt(long offset) {
        checkLive();
        return pointer.getInt(offset);
    }

    /** Copies bytes in, through the buffer's view (a plain Java copy, no native call). */
    public void write(int offset, byte[] src, int from, int length) {
        asByteBuffer().put(offset, src, from, length);
    }

    /** Copies bytes out, through the buffer's view. */
    public void read(int offset, byte[] dst, int from, int length) {
        asByteBuffer().get(offset, dst, from, length);
    }

    @Override
    public void close() {
        if (!freed) {
            freed = true;
            Native.free(base);
            LIVE_BYTES.addAndGet(-allocated);
        }
    }

    /** Native memory allocated as buffers and not yet freed, in bytes, in the whole JVM: what bounds are checked by. */
    public static long liveBytes() {
        return LIVE_BYTES.get();
    }

    private void checkLive() {
        if (freed) {
            throw new IllegalStateException("native buffer already freed");
        }
    }
}
