package dev.uringactors.actors;

import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.Sqe;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;

import java.nio.file.Path;
import java.time.Instant;

/**
 * The file requests a ring actor carries out, one small class per op. Data is copied between the Java heap
 * and native memory: a {@code ByteString} is immutable heap data that the GC may move, while the kernel needs
 * an address that stays put until the completion, so each read or write owns a native buffer for that time.
 */
final class RingOps {
    private RingOps() {
    }

    /** An op whose answer is only that it succeeded: NOP, FSYNC, and CLOSE ({@link CloseFile}). */
    static class DoneOp extends ReplyOp<Done> {
        private final Opcode opcode;
        private final String target;
        private final Prep prep;

        /** {@code target} names what the op works on in error messages, or is null. */
        DoneOp(Opcode opcode, String target, Prep prep, ActorRef<StatusReply<Done>> replyTo) {
            super(replyTo);
            this.opcode = opcode;
            this.target = target;
            this.prep = prep;
        }

        @Override
        Opcode opcode() {
            return opcode;
        }

        @Override
        void prepare(Sqe sqe) {
            prep.prepare(sqe);
        }

        @Override
        Done result(int res) {
            return Done.getInstance();
        }

        @Override
        String target() {
            return target;
        }
    }

    /** CLOSE of a file; where the ring can no longer take it, close(2) runs directly: no fd outlives its handle. */
    static final class CloseFile extends DoneOp {
        private final FileHandle file;

        CloseFile(FileHandle file, ActorRef<StatusReply<Done>> replyTo) {
            super(Opcode.CLOSE, file.path().toString(), sqe -> sqe.prepClose(file.fd()), replyTo);
            this.file = file;
        }

        @Override
        void refuse(Throwable cause) {
            complete(Sockets.close(file.fd()), 0, 0);
        }
    }

    /** An op that hands the kernel a path: its NUL-terminated copy lives until the final completion. */
    abstract static class PathOp<T> extends ReplyOp<T> {
        final Path path;
        final NativeBuffer pathString;

        PathOp(Path path, ActorRef<StatusReply<T>> replyTo) {
            super(replyTo);
            this.path = path;
            this.pathString = NativeBuffer.ofString(path.toString());
        }

        @Override
        String target() {
            return path.toString();
        }

        @Override
        void release() {
            pathString.close();
        }
    }

    static final class Open extends PathOp<FileHandle> {
        private final int flags;
        private final int ring;
        private final boolean direct;
        private final boolean polled;

        Open(Path path, int flags, boolean direct, boolean polled, int ring,
             ActorRef<StatusReply<FileHandle>> replyTo) {
            super(path, replyTo);
            this.flags = flags;
            this.direct = direct;
            this.polled = polled;
            this.ring = ring;
        }

        @Override
        Opcode opcode() {
            return Opcode.OPENAT;
        }

        @Override
        void prepare(Sqe sqe) {
            sqe.prepOpenat(OpFlags.AT_FDCWD, pathString.address(), flags, 0644);
        }

        @Override
        FileHandle result(int fd) {
            return new FileHandle(fd, path, direct, polled, ring);
        }
    }

    /** A read or write of a file through a pooled native buffer, which goes back after the final completion. */
    abstract static class PooledFileOp<T> extends ReplyOp<T> {
        final FileHandle file;
        final long position;
        final int length;
        final NativeBuffer buffer;
        private final BufferPool pool;

        PooledFileOp(FileHandle file, long position, int length, BufferPool pool,
                     ActorRef<StatusReply<T>> replyTo) {
            super(replyTo);
            this.file = file;
            this.position = position;
            this.length = length;
            this.pool = pool;
            this.buffer = pool.acquire(length);
        }

        @Override
        boolean polled() {
            return file.polled();
        }

        /** A file read or write completes in a time a waiting strategy can learn; a polled one is polled anyway. */
        @Override
        int latencyKind() {
            return file.polled() ? -1 : opcode().ordinal();
        }

        @Override
        String target() {
            return file.path().toString();
        }

        @Override
        void release() {
            pool.release(buffer);
        }
    }

    static final class Read extends PooledFileOp<ByteString> {
        Read(FileHandle file, long position, int length, BufferPool pool, ActorRef<StatusReply<ByteString>> replyTo) {
            super(file, position, length, pool, replyTo);
        }

        @Override
        Opcode opcode() {
            return Opcode.READ;
        }

        @Override
        void prepare(Sqe sqe) {
            sqe.prepRead(file.fd(), buffer.address(), length, position);
        }

        @Override
        ByteString result(int res) {
            byte[] bytes = new byte[res];
            buffer.read(0, bytes, 0, res);
            return ByteString.fromArrayUnsafe(bytes);
        }
    }

    /** Writes until all is written: a short write is submitted again for the rest. */
    static final class Write extends PooledFileOp<Integer> {
        private int written;

        Write(FileHandle file, long position, ByteString data, BufferPool pool,
              ActorRef<StatusReply<Integer>> replyTo) {
            super(file, position, data.size(), pool, replyTo);
            data.copyToBuffer(buffer.asByteBuffer().clear());
        }

        @Override
        Opcode opcode() {
            return Opcode.WRITE;
        }

        @Override
        void prepare(Sqe sqe) {
            sqe.prepWrite(file.fd(), buffer.address() + written, length - written, position + written);
        }

        @Override
        boolean done(int res) {
            written += res;
            return written >= length || res == 0;
        }

        @Override
        Integer result(int res) {
            return written;
        }
    }

    static final class Stat extends PathOp<FileStat> {
        private final NativeBuffer statx = NativeBuffer.allocate(256);

        Stat(Path path, ActorRef<StatusReply<FileStat>> replyTo) {
            super(path, replyTo);
        }

        @Override
        Opcode opcode() {
            return Opcode.STATX;
        }

        @Override
        void prepare(Sqe sqe) {
            sqe.prepStatx(OpFlags.AT_FDCWD, pathString.address(), 0, OpFlags.STATX_BASIC_STATS, statx.address());
        }

        @Override
        FileStat result(int res) {
            // struct statx: stx_blksize @4, stx_mode @28 (u16), stx_size @40, stx_mtime @112 (sec s64, nsec u32)
            Instant modified = Instant.ofEpochSecond(statx.getLong(112), statx.getInt(120));
            return new FileStat(statx.getLong(40), statx.getInt(28) & 0xffff, modified, statx.getInt(4));
        }

        @Override
        void release() {
            super.release();
            statx.close();
        }
    }
}
