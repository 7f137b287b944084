package dev.uringactors.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A provided-buffer ring (IORING_REGISTER_PBUF_RING, 5.19): buffers the kernel picks from when a request sets
 * BUFFER_SELECT with this group, as multishot recv does. The kernel takes buffers at the head; the application
 * gives them back at the tail, published with a release store. A completion names the buffer by id in its
 * flags ({@link CqeFlags#bufferId}); read its data, then {@link #recycle} it.
 */
public final class BufferRing implements AutoCloseable {
    private static final VarHandle U16 = MethodHandles.byteBufferViewVarHandle(short[].class,
            ByteOrder.LITTLE_ENDIAN);
    /** The tail overlays the reserved u16 of the first entry (struct io_uring_buf_ring). */
    private static final int TAIL_OFFSET = 14;

    private final Ring ring;
    private final int group;
    private final int entries;
    private final int bufferSize;
    private final NativeBuffer entriesMemory;
    private final NativeBuffer buffers;
    private final ByteBuffer view;
    private final ByteBuffer data;
    private int tail;
    private boolean closed;

    private BufferRing(Ring ring, int group, int entries, int bufferSize) {
        this.ring = ring;
        this.group = group;
        this.entries = entries;
        this.bufferSize = bufferSize;
        this.entriesMemory = NativeBuffer.allocateAligned(16L * entries, 4096);
        this.buffers = NativeBuffer.allocateAligned((long) entries * bufferSize, 4096);
        this.view = entriesMemory.asByteBuffer();
        this.data = buffers.asByteBuffer();
    }

    /**
     * Registers {@code entries} (a power of two, at most 32768) buffers of {@code bufferSize} bytes as group
     * {@code group} of this ring, all of them given to the kernel.
     */
    public static BufferRing register(Ring ring, int group, int entries, int bufferSize) {
        if (Integer.bitCount(entries) != 1 || entries > 32768) {
            throw new IllegalArgumentException("entries must be a power of two up to 32768: " + entries);
        }
        BufferRing b = new BufferRing(ring, group, entries, bufferSize);
        try (NativeBuffer reg = NativeBuffer.allocate(40)) {
            reg.putLong(0, b.entriesMemory.address());
            reg.putInt(8, entries);
            reg.putInt(12, group); // bgid (u16), then flags (u16) = 0
            ring.registerBufferRing(true, reg.address());
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

    public int group() {
        return group;
    }

    public int bufferSize() {
        return bufferSize;
    }

    /** Copies {@code length} bytes of buffer {@code bid} into {@code dst}. */
    public void copy(int bid, byte[] dst, int from, int length) {
        data.get(bid * bufferSize, dst, from, length);
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
