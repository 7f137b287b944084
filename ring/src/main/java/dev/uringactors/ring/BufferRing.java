package dev.uringactors.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A provided-buffer ring (IORING_REGISTER_PBUF_RING, 5.19): buffers the kernel picks from when a request sets
 * BUFFER_SELECT with this group, as multishot recv does. The kernel takes buffers at the head; the application
 * gives them back at the tail, published with a release store. A completion names the buffer by id in its
 * flags ({@link CqeFlags#bufferId}); {@link #take} copies its data out and gives the buffer back.
 *
 * <p>Where the kernel has it (6.12), the ring is incremental (IOU_PBUF_RING_INC): a buffer is consumed piece by
 * piece, so many small receives share one buffer instead of each taking a whole one. A CQE with
 * {@link CqeFlags#F_BUF_MORE} means the kernel keeps the buffer and the next piece follows this one in it.
 */
public final class BufferRing implements AutoCloseable {
    private static final VarHandle U16 = MethodHandles.byteBufferViewVarHandle(short[].class,
            ByteOrder.LITTLE_ENDIAN);
    /** The tail overlays the reserved u16 of the first entry (struct io_uring_buf_ring). */
    private static final int TAIL_OFFSET = 14;
    private static final int IOU_PBUF_RING_INC = 2;

    private final Ring ring;
    private final int group;
    private final int entries;
    private final int bufferSize;
    private final NativeBuffer entriesMemory;
    private final NativeBuffer buffers;
    private final ByteBuffer view;
    private final ByteBuffer data;
    /** Per buffer, in incremental mode: how much of it the kernel has filled since it was given back. */
    private final int[] consumed;
    private boolean incremental;
    private int tail;
    private boolean closed;

    private BufferRing(Ring ring, int group, int entries, int bufferSize) {
        this.ring = ring;
        this.group = group;
        this.entries = entries;
        this.bufferSize = bufferSize;
        this.consumed = new int[entries];
        this.entriesMemory = NativeBuffer.allocateAligned(16L * entries, 4096);
        this.buffers = NativeBuffer.allocateAligned((long) entries * bufferSize, 4096);
        this.view = entriesMemory.asByteBuffer();
        this.data = buffers.asByteBuffer();
    }

    /**
     * Registers {@code entries} (a power of two, at most 32768) buffers of {@code bufferSize} bytes as group
     * {@code group} of this ring, all of them given to the kernel; incremental where the kernel has it.
     */
    public static BufferRing register(Ring ring, int group, int entries, int bufferSize) {
        return register(ring, group, entries, bufferSize, true);
    }

    /** As {@link #register(Ring, int, int, int)}; {@code incremental} false asks for whole-buffer use. */
    public static BufferRing register(Ring ring, int group, int entries, int bufferSize, boolean incremental) {
        if (Integer.bitCount(entries) != 1 || entries > 32768) {
            throw new IllegalArgumentException("entries must be a power of two up to 32768: " + entries);
        }
        BufferRing b = new BufferRing(ring, group, entries, bufferSize);
        try {
            b.incremental = incremental && b.registerWith(IOU_PBUF_RING_INC);
            if (!b.incremental) {
                b.registerWith(0);
            }
        } catch (RuntimeException e) {
            b.free();
            throw e;
        }
        for (int bid = 0; bid < entries; bid++) {
            b.put(bid);
        }
        b.publish();
        return b;
    }

    /** Registers the ring; false when the kernel rejects the flags (incremental before 6.12: EINVAL). */
    private boolean registerWith(int flags) {
        try (NativeBuffer reg = NativeBuffer.allocate(40)) {
            reg.putLong(0, entriesMemory.address());
            reg.putInt(8, entries);
            reg.putInt(12, group | (flags << 16)); // bgid (u16), then flags (u16)
            ring.registerBufferRing(true, reg.address());
            return true;
        } catch (UringException e) {
            if (flags != 0 && e.errno() == Errno.EINVAL) {
                return false;
            }
            throw e;
        }
    }

    /** The buffer group id that requests name to take their buffers from this ring. */
    public int group() {
        return group;
    }

    /** Whether the kernel consumes buffers piece by piece (IOU_PBUF_RING_INC). */
    public boolean incremental() {
        return incremental;
    }

    /**
     * The {@code res} bytes a CQE with these {@code flags} received, copied out; the buffer goes back to the
     * kernel once it is done with it (at once, or in incremental mode when F_BUF_MORE is clear).
     */
    public byte[] take(int flags, int res) {
        int bid = CqeFlags.bufferId(flags);
        int offset = incremental ? consumed[bid] : 0;
        byte[] bytes = new byte[res];
        data.get(bid * bufferSize + offset, bytes, 0, res);
        if (incremental && (flags & CqeFlags.F_BUF_MORE) != 0) {
            consumed[bid] = offset + res;
        } else {
            consumed[bid] = 0;
            recycle(bid);
        }
        return bytes;
    }

    /** The size of each buffer, in bytes. */
    public int bufferSize() {
        return bufferSize;
    }

    /** The address of buffer {@code bid}. */
    public long address(int bid) {
        return buffers.address() + (long) bid * bufferSize;
    }

    /** Gives buffer {@code bid} back to the kernel. */
    public void recycle(int bid) {
        put(bid);
        publish();
    }

    private void put(int bid) {
        int at = (tail & (entries - 1)) * 16;
        view.putLong(at, address(bid));
        view.putInt(at + 8, bufferSize);
        view.putShort(at + 12, (short) bid);
        tail++;
    }

    private void publish() {
        U16.setRelease(view, TAIL_OFFSET, (short) tail);
    }

    /** Unregisters the group and frees its memory; the ring must have no request using it in flight. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (NativeBuffer reg = NativeBuffer.allocate(40)) {
            reg.putInt(12, group);
            ring.registerBufferRing(false, reg.address());
        } catch (RuntimeException e) {
            // The ring may be closed already, which unregisters everything.
        }
        free();
    }

    private void free() {
        entriesMemory.close();
        buffers.close();
    }
}
