package dev.uringactors.ring;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
class FileOpsTest {
    @TempDir
    Path dir;
    Ring ring;

    @BeforeEach
    void open() {
        ring = Ring.open(32, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
    }

    @AfterEach
    void close() {
        ring.close();
    }

    private int run(Sqe sqe) {
        sqe.userData(77);
        return Reaped.await(ring, 1).byUserData(77).res();
    }

    private int openat(Path file, int flags) {
        try (NativeBuffer path = NativeBuffer.ofString(file.toString())) {
            int fd = run(ring.nextSqe().prepOpenat(OpFlags.AT_FDCWD, path.address(), flags, 0644));
            assertTrue(fd >= 0, "openat " + file + ": " + Errno.name(fd));
            return fd;
        }
    }

    @Test
    void openatWriteFsyncReadStatxClose() throws Exception {
        Path file = dir.resolve("data");
        byte[] text = "hello, ring".getBytes(StandardCharsets.UTF_8);
        int fd = openat(file, OpFlags.O_RDWR | OpFlags.O_CREAT | OpFlags.O_CLOEXEC);
        try (NativeBuffer buf = NativeBuffer.allocate(64); NativeBuffer path = NativeBuffer.ofString(file.toString());
             NativeBuffer statx = NativeBuffer.allocate(256)) {
            buf.write(0, text, 0, text.length);
            assertEquals(text.length, run(ring.nextSqe().prepWrite(fd, buf.address(), text.length, 100)));
            assertEquals(0, run(ring.nextSqe().prepFsync(fd, OpFlags.FSYNC_DATASYNC)));
            assertEquals(0, run(ring.nextSqe().prepStatx(OpFlags.AT_FDCWD, path.address(), 0,
                    OpFlags.STATX_BASIC_STATS, statx.address())));
            assertEquals(100 + text.length, statx.getLong(40), "stx_size");

            NativeBuffer into = NativeBuffer.allocate(64);
            assertEquals(text.length, run(ring.nextSqe().prepRead(fd, into.address(), 64, 100)));
            byte[] back = new byte[text.length];
            into.read(0, back, 0, back.length);
            into.close();
            assertArrayEquals(text, back);
        }
        assertEquals(0, run(ring.nextSqe().prepClose(fd)));
        assertEquals(-Errno.EBADF, run(ring.nextSqe().prepClose(fd)), "closed already");
        byte[] onDisk = Files.readAllBytes(file);
        assertEquals(100 + text.length, onDisk.length);
    }

    @Test
    void writevThenReadvAcrossTwoBuffers() throws Exception {
        Path file = dir.resolve("vec");
        int fd = openat(file, OpFlags.O_RDWR | OpFlags.O_CREAT);
        try (NativeBuffer a = NativeBuffer.allocate(3); NativeBuffer b = NativeBuffer.allocate(4);
             NativeBuffer iov = NativeBuffer.allocate(32)) {
            a.write(0, "abc".getBytes(StandardCharsets.US_ASCII), 0, 3);
            b.write(0, "defg".getBytes(StandardCharsets.US_ASCII), 0, 4);
            iov.putLong(0, a.address());
            iov.putLong(8, 3);
            iov.putLong(16, b.address());
            iov.putLong(24, 4);
            assertEquals(7, run(ring.nextSqe().prepWritev(fd, iov.address(), 2, 0)));
            assertEquals("abcdefg", Files.readString(file));

            a.write(0, new byte[3], 0, 3);
            b.write(0, new byte[4], 0, 4);
            assertEquals(7, run(ring.nextSqe().prepReadv(fd, iov.address(), 2, 0)));
            byte[] second = new byte[4];
            b.read(0, second, 0, 4);
            assertEquals("defg", new String(second, StandardCharsets.US_ASCII));
        }
        run(ring.nextSqe().prepClose(fd));
    }

    @Test
    void fixedBuffersAndFixedFiles() throws Exception {
        Path file = dir.resolve("fixed");
        Files.write(file, new byte[8192]);
        int fd = openat(file, OpFlags.O_RDWR);
        try (NativeBuffer registered = NativeBuffer.allocateAligned(8192, 4096)) {
            ring.registerBuffers(registered);
            ring.registerFiles(-1, fd);
            byte[] pattern = new byte[4096];
            for (int i = 0; i < pattern.length; i++) {
                pattern[i] = (byte) (i * 31);
            }
            registered.write(4096, pattern, 0, pattern.length);
            // Slot 1 of the file table, buffer 0 (its second half).
            assertEquals(4096, run(ring.nextSqe().prepWriteFixed(1, registered.address() + 4096, 4096, 4096, 0)
                    .flags(SqeFlags.FIXED_FILE)));
            assertEquals(4096, run(ring.nextSqe().prepReadFixed(fd, registered.address(), 4096, 4096, 0)));
            byte[] back = new byte[4096];
            registered.read(0, back, 0, back.length);
            assertArrayEquals(pattern, back);

            assertEquals(1, ring.updateFiles(0, fd));
            assertEquals(4096, run(ring.nextSqe().prepRead(0, registered.address(), 4096, 4096)
                    .flags(SqeFlags.FIXED_FILE)), "slot 0 after the update");
            ring.unregisterFiles();
            ring.unregisterBuffers();
        }
        run(ring.nextSqe().prepClose(fd));
    }

    @Test
    void openatDirectIntoAFreeSlotThenCloseTheSlot() throws Exception {
        Path file = dir.resolve("direct");
        Files.writeString(file, "direct descriptors");
        ring.registerFiles(-1, -1);
        try (NativeBuffer path = NativeBuffer.ofString(file.toString()); NativeBuffer buf = NativeBuffer.allocate(64)) {
            int slot = run(ring.nextSqe().prepOpenatDirect(OpFlags.AT_FDCWD, path.address(), OpFlags.O_RDONLY, 0,
                    OpFlags.FILE_INDEX_ALLOC));
            assertTrue(slot == 0 || slot == 1, "allocated slot " + slot);
            assertEquals(18, run(ring.nextSqe().prepRead(slot, buf.address(), 64, 0).flags(SqeFlags.FIXED_FILE)));
            assertEquals(0, run(ring.nextSqe().prepCloseDirect(slot)));
        }
    }

    @Test
    void openingAMissingFileCompletesWithEnoentAndATypedError() {
        try (NativeBuffer path = NativeBuffer.ofString(dir.resolve("missing").toString())) {
            int res = run(ring.nextSqe().prepOpenat(OpFlags.AT_FDCWD, path.address(), OpFlags.O_RDONLY, 0));
            assertEquals(-Errno.ENOENT, res);
            UringException e = UringException.ofResult(Opcode.OPENAT, res, "missing", ring.setupFlags());
            assertEquals("ENOENT", e.errnoName());
            assertTrue(e.getMessage().startsWith("OPENAT missing: ENOENT (No such file or directory)"),
                    e.getMessage());
        }
    }
}
