package dev.uringactors.ring;

import com.sun.jna.Pointer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A region mmap'ed from the ring fd, seen as a little-endian direct buffer with ordered int access. */
final class RingMemory {
    /** Ordered access to u32 fields of ring memory; the index is a byte offset. */
    static final VarHandle U32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    final long address;
    final long length;
    final ByteBuffer buffer;

    private RingMemory(long address, long length) {
        this.address = address;
        this.length = length;
        this.buffer = new Pointer(address).getByteBuffer(0, length).order(ByteOrder.LITTLE_ENDIAN);
    }

    static RingMemory map(int ringFd, long length, long offset) {
        long addr = LibC.mmap(0, length, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_SHARED | LibC.MAP_POPULATE,
                ringFd, offset);
        if (addr == LibC.MAP_FAILED) {
            int errno = -LibC.negErrno();
            throw new UringException("mmap of io_uring region 0x" + Long.toHexString(offset), errno,
                    errno == Errno.ENOMEM ? "not enough (locked) memory for the ring; raise ulimit -l" : null);
        }
        return new RingMemory(addr, length);
    }

    void unmap() {
        LibC.munmap(address, length);
    }
}
