package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Opcode;
import org.apache.pekko.util.ByteString;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;

/**
 * The blocking JDK calls behind the file requests, each as the ring's op behaves: positional reads that come back
 * short only at the end of the file, writes that write all, opens beneath a directory that cannot leave it.
 */
final class JdkFileCalls {
    private static final ThreadLocal<LentBuffer> LENT = ThreadLocal.withInitial(LentBuffer::new);
    /** st_mode's file type bits, and a FIFO's. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;

    private JdkFileCalls() {
    }

    static JdkOpenFile open(Path path, Set<OpenOption> options) throws IOException {
        return new JdkOpenFile(channel(path, options, Opcode.OPENAT, path.toString()), path, false);
    }

    /** The channel; {@code op} and {@code shown} name the open in its refusal. */
    private static FileChannel channel(Path path, Set<OpenOption> options, Opcode op, String shown)
            throws IOException {
        refuseWaitingFifo(path, options, op, shown);
        return FileChannel.open(path, options, JdkOpenOptions.MODE_0644);
    }

    /**
     * Refuses with ENXIO to open a FIFO for reading only or for writing only: the JDK's open would wait until
     * its other end is opened, holding a thread of the file dispatcher meanwhile (for ever, if nobody comes),
     * where the ring's open returns at once. A FIFO opened for both opens at once. What is at {@code path} is
     * looked at just before the open, so a FIFO put there in between still waits.
     */
    private static void refuseWaitingFifo(Path path, Set<OpenOption> options, Opcode op, String shown)
            throws IOException {
        boolean writes = options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
        boolean reads = options.contains(StandardOpenOption.READ) || !writes;
        if (reads && writes) {
            return;
        }
        LinkOption[] follow = options.contains(LinkOption.NOFOLLOW_LINKS)
                ? new LinkOption[] {LinkOption.NOFOLLOW_LINKS} : new LinkOption[0];
        int mode;
        try {
            mode = (Integer) Files.getAttribute(path, "unix:mode", follow);
        } catch (NoSuchFileException e) {
            return; // the open says so, or creates it
        }
        if ((mode & S_IFMT) == S_IFIFO) {
            throw JdkErrors.refusal(op, shown, Errno.ENXIO);
        }
    }

    /**
     * Opens {@code relative} beneath {@code directory} ({@link BeneathPath}). The lookup and the open are two
     * steps here, where openat2 takes one: the open follows no symlink at the end (one put there since fails with
     * ELOOP), and the file's real path must still lie in the directory's, else it is closed and refused (EXDEV).
     */
    static JdkOpenFile openBeneath(Path directory, Path relative, Set<OpenOption> options, String shown)
            throws IOException {
        Path path = BeneathPath.resolve(directory, relative, options.contains(LinkOption.NOFOLLOW_LINKS), shown);
        Set<OpenOption> noFollow = new HashSet<>(options);
        noFollow.add(LinkOption.NOFOLLOW_LINKS);
        FileChannel channel = channel(path, noFollow, Opcode.OPENAT2, shown);
        try {
            if (!path.toRealPath().startsWith(directory.toRealPath())) {
                throw JdkErrors.refusal(Opcode.OPENAT2, shown, Errno.EXDEV);
            }
            return new JdkOpenFile(channel, path, true);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Up to {@code length} bytes at {@code position}, copied off: fewer, or none, at the end of the file. Read into
     * the thread's direct buffer and copied once into an array of the size read; a larger read goes through an
     * array of its own (the JDK reads it through a direct buffer of its own).
     */
    static ByteString read(JdkOpenFile file, long position, int length) throws IOException {
        if (length <= LentBuffer.SIZE) {
            return readLent(file, position, length, JdkFileCalls::copied);
        }
        ByteBuffer buffer = ByteBuffer.allocate(length);
        int n = readInto(file, buffer, position);
        return n == length ? ByteString.fromArrayUnsafe(buffer.array()) : ByteString.fromArray(buffer.array(), 0, n);
    }

    private static ByteString copied(ByteBuffer bytes) {
        byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        return ByteString.fromArrayUnsafe(copy);
    }

    /**
     * What {@code reader} makes of up to {@code length} bytes at {@code position}, lent as a read-only view: of
     * the thread's own direct buffer, which the read fills with no copy (the JDK reads a heap buffer through a
     * direct one), or, for a read larger than it or made by a reader while it lends it, of a buffer of its own.
     */
    static <T> T readLent(JdkOpenFile file, long position, int length, Function<ByteBuffer, T> reader)
            throws IOException {
        LentBuffer lent = LENT.get();
        boolean own = lent.lent || length > LentBuffer.SIZE;
        ByteBuffer buffer = own ? ByteBuffer.allocate(length) : lent.take(length);
        try {
            int n = readInto(file, buffer, position);
            return reader.apply(buffer.flip().slice(0, n).asReadOnlyBuffer());
        } finally {
            if (!own) {
                lent.lent = false;
            }
        }
    }

    /** A thread's buffer for lent reads, made at its first one, and whether a reader has it now. */
    private static final class LentBuffer {
        /** Larger reads are rarer, and lent from a buffer of their own. */
        static final int SIZE = 64 * 1024;
        /** An O_DIRECT read needs its direct buffer aligned to the file system's block: 4 KiB covers 512 too. */
        private static final int ALIGNMENT = 4096;
        private ByteBuffer buffer;
        private boolean lent;

        ByteBuffer take(int length) {
            if (buffer == null) {
                buffer = ByteBuffer.allocateDirect(SIZE + ALIGNMENT).alignedSlice(ALIGNMENT);
            }
            lent = true;
            return buffer.clear().limit(length);
        }
    }

    /**
     * One pread, as the ring's READ: the end of the file reads 0 bytes (the JDK says -1). A file with no position
     * (a FIFO) is read where it stands, as the ring reads it.
     */
    private static int readInto(JdkOpenFile file, ByteBuffer buffer, long position) throws IOException {
        try {
            return Math.max(file.channel().read(buffer, position), 0);
        } catch (IOException e) {
            if (JdkErrors.errno(e) != Errno.ESPIPE) {
                throw e;
            }
            return Math.max(file.channel().read(buffer), 0);
        }
    }

    /**
     * Writes all of {@code data} at {@code position} (until a write takes nothing, as the ring's Write); to a file
     * with no position (a FIFO) where it stands.
     */
    static int write(JdkOpenFile file, long position, ByteString data) throws IOException {
        ByteBuffer source = data.asByteBuffer();
        int written = 0;
        while (source.hasRemaining()) {
            int n;
            try {
                n = file.channel().write(source, position + written);
            } catch (IOException e) {
                if (JdkErrors.errno(e) != Errno.ESPIPE) {
                    throw e;
                }
                n = file.channel().write(source);
            }
            if (n == 0) {
                break;
            }
            written += n;
        }
        return written;
    }
}
