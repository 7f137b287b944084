package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.OpenedFile;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.internal.issue.BufferLease;
import dev.uringactors.actors.internal.issue.BufferPool;
import dev.uringactors.actors.internal.issue.CloseOp;
import dev.uringactors.actors.internal.issue.ReplyOp;
import dev.uringactors.actors.internal.issue.RingOp.Admission;
import dev.uringactors.actors.internal.issue.RingOp.Prep;
import dev.uringactors.actors.internal.issue.SimpleOp;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.OpenHow;
import dev.uringactors.ring.PolledIo.DeviceNumber;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.SqeFlags;
import dev.uringactors.ring.Statx;
import dev.uringactors.ring.UringException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The file requests a ring's file actor carries out, one small class per op. Data is copied between the Java heap
 * and native memory: a {@code ByteString} is immutable heap data that the GC may move, while the kernel needs
 * an address that stays put until the completion, so each read or write owns a native buffer for that time.
 */
public final class FileOps {
    private FileOps() {
    }

    /** A NOP or an FSYNC: a caller's request, answered with Done or the typed failure. */
    static SimpleOp done(Opcode opcode, String target, Prep prep, ActorRef<StatusReply<Done>> replyTo) {
        return new SimpleOp(opcode, Admission.REQUEST, prep, new DoneReply(opcode, target, replyTo));
    }

    /** CLOSE of a file: counted, in order behind the reads queued before it, and never refused: it must happen. */
    static CloseOp closeFile(FileHandle file, ActorRef<StatusReply<Done>> replyTo) {
        return new CloseOp(file.fd(), file.registered(), Admission.REQUEST_NEVER_REFUSED,
                new DoneReply(Opcode.CLOSE, file.path().toString(), replyTo));
    }

    /** Answers a simple file op's requester: Done, the typed failure of a negative result, or the ring's failure. */
    private record DoneReply(Opcode opcode, String target, ActorRef<StatusReply<Done>> replyTo)
            implements SimpleOp.Outcome {
        @Override
        public void completed(int res, int ringFlags) {
            replyTo.tell(res < 0 ? StatusReply.error(UringException.ofResult(opcode, res, target, ringFlags))
                    : StatusReply.success(Done.getInstance()));
        }

        @Override
        public void failed(Throwable cause) {
            replyTo.tell(StatusReply.error(cause));
        }
    }

    /**
     * An op that hands the kernel a path: a NUL-terminated copy in a pooled native buffer, followed by the room
     * the op needs for its arguments or its answer (an {@code open_how}, a {@code struct statx}), all kept until
     * the final completion.
     */
    abstract static class PathOp<T> extends ReplyOp<T> {
        final Path path;
        private final byte[] kernelPath;
        private final int extraBytes;
        /** Where the room after the path begins: 8-aligned. */
        final int extra;
        BufferLease lease;

        /** {@code path} names the file in answers and errors; {@code kernelPath} is what the kernel is given. */
        PathOp(Path path, String kernelPath, int extraBytes, ActorRef<StatusReply<T>> replyTo) {
            super(replyTo);
            this.path = path;
            this.kernelPath = kernelPath.getBytes(StandardCharsets.UTF_8);
            this.extraBytes = extraBytes;
            this.extra = (this.kernelPath.length + 1 + 7) & ~7;
        }

        @Override
        protected Admission admission() {
            return Admission.REQUEST;
        }

        @Override
        protected BufferLease acquire(BufferPool pool) {
            lease = pool.lease(extra + extraBytes);
            lease.buffer().asByteBuffer().put(0, kernelPath).put(kernelPath.length, (byte) 0);
            writeExtra();
            return lease;
        }

        /** Fills the room after the path, if the op gives the kernel something there. */
        void writeExtra() {
        }

        long pathAddress() {
            return lease.address();
        }

        long extraAddress() {
            return lease.address() + extra;
        }

        /** {@code length} bytes of the room after the path from {@code offset} in it, little-endian as the kernel's. */
        ByteBuffer extraBytes(int offset, int length) {
            return lease.buffer().asByteBuffer().slice(extra + offset, length).order(ByteOrder.LITTLE_ENDIAN);
        }

        @Override
        protected String target() {
            return path.toString();
        }
    }

    /**
     * OPENAT of a path, or OPENAT2 of a path that must stay beneath an open directory (then an {@code open_how}
     * after the path holds the flags and RESOLVE_BENEATH), answered with what {@code answerAs} makes of the new
     * file's handle and the room kept after those for its stat ({@code statRoom}, or null). With somewhere to go
     * on to, a successful open is not answered here but handed on: to a {@link DirectOpen}, which finds the
     * file's ring, or to a STATX of the file.
     */
    static final class Open<T> extends PathOp<T> {
        private static final int MODE = 0644;
        private final int dirfd;
        private final int flags;
        private final boolean beneath;
        private final int ring;
        private final boolean direct;
        private final boolean registered;
        private final OpenFiles files;
        private final BiFunction<FileHandle, StatRoom, T> answerAs;
        private final boolean statRoom;
        /** Where a successful open goes on to, or null: it is answered at once. */
        private final Consumer<FileHandle> goesOn;
        private FileHandle opened;

        /** The room the op keeps for the stat of the file it opens: its address, and the same bytes to read. */
        private record StatRoom(long address, ByteBuffer bytes) {
        }

        private Open(int dirfd, Path path, String kernelPath, int flags, boolean beneath, boolean direct,
                     boolean registered, int ring, OpenFiles files, boolean statRoom,
                     BiFunction<FileHandle, StatRoom, T> answerAs, ActorRef<StatusReply<T>> replyTo,
                     Consumer<FileHandle> goesOn) {
            super(path, kernelPath, (beneath ? OpenHow.SIZE : 0) + (statRoom ? Statx.SIZE : 0), replyTo);
            this.statRoom = statRoom;
            this.files = files;
            this.registered = registered;
            this.dirfd = dirfd;
            // A direct descriptor has no close-on-exec: the kernel refuses the flag with it (EINVAL).
            this.flags = registered ? flags & ~OpFlags.O_CLOEXEC : flags;
            this.beneath = beneath;
            this.direct = direct;
            this.ring = ring;
            this.answerAs = answerAs;
            this.goesOn = goesOn;
        }

        @Override
        void writeExtra() {
            if (beneath) { // openat2 takes a mode only to create
                OpenHow.write(lease.buffer(), extra, flags, (flags & OpFlags.O_CREAT) != 0 ? MODE : 0,
                        OpenHow.RESOLVE_BENEATH | OpenHow.RESOLVE_NO_MAGICLINKS);
            }
        }

        /** Opens {@code path}; {@code registered}: into the ring's registered file table. */
        static Open<FileHandle> of(Path path, int flags, boolean direct, boolean registered, int ring,
                                   OpenFiles files, ActorRef<StatusReply<FileHandle>> replyTo, DirectOpen routing) {
            return new Open<>(OpFlags.AT_FDCWD, path, path.toString(), flags, false, direct, registered, ring, files,
                    false, (file, none) -> file, replyTo, routing == null ? null : routing::opened);
        }

        /** Opens {@code relative} beneath {@code directory}; the handle's path is the two joined. */
        static Open<FileHandle> beneath(FileHandle directory, Path relative, int flags, boolean direct,
                                        boolean registered, int ring, OpenFiles files,
                                        ActorRef<StatusReply<FileHandle>> replyTo, DirectOpen routing) {
            return new Open<>(directory.fd(), directory.path().resolve(relative), relative.toString(), flags, true,
                    direct, registered, ring, files, false, (file, none) -> file, replyTo,
                    routing == null ? null : routing::opened);
        }

        /**
         * {@link #beneath}, answered with the new file and its stat, taken directly through its descriptor as the
         * open completes; with {@code statxAfter}, which the open hands the file to, by the ring's STATX instead.
         */
        static Open<OpenedFile> beneathWithStat(FileHandle directory, Path relative, int flags, boolean direct,
                                                int ring, OpenFiles files, ActorRef<StatusReply<OpenedFile>> replyTo,
                                                Consumer<FileHandle> statxAfter) {
            return new Open<>(directory.fd(), directory.path().resolve(relative), relative.toString(), flags, true,
                    direct, false, ring, files, true, (file, room) -> statted(file, room, files), replyTo,
                    statxAfter);
        }

        /** The file and its stat, written to {@code room}; a stat that fails closes the file, and is the answer. */
        private static OpenedFile statted(FileHandle file, StatRoom room, OpenFiles files) {
            try {
                Statx.ofOpenFile(file.fd(), room.address(), file.path().toString());
                return new OpenedFile(file, FileStat.from(room.bytes()));
            } catch (RuntimeException e) {
                if (files.closing(file)) {
                    Descriptors.close(file.fd());
                }
                throw e;
            }
        }

        @Override
        protected Opcode opcode() {
            return beneath ? Opcode.OPENAT2 : Opcode.OPENAT;
        }

        @Override
        protected void prepare(Sqe sqe) {
            if (beneath) {
                sqe.prepOpenat2(dirfd, pathAddress(), extraAddress());
            } else {
                sqe.prepOpenat(dirfd, pathAddress(), flags, MODE);
            }
            if (registered) {
                sqe.fileIndex(OpFlags.FILE_INDEX_ALLOC); // the result is a slot of the ring's table
            }
        }

        @Override
        protected T result(int fd) {
            opened = files.opened(fd, path, direct, ring, registered);
            if (goesOn != null) {
                return null;
            }
            int room = beneath ? OpenHow.SIZE : 0;
            return answerAs.apply(opened, statRoom
                    ? new StatRoom(extraAddress() + room, extraBytes(room, Statx.SIZE)) : null);
        }

        @Override
        protected void answer(StatusReply<T> reply) {
            if (goesOn != null && reply.isSuccess()) {
                goesOn.accept(opened);
            } else {
                super.answer(reply);
            }
        }

        @Override
        protected void drained(int res, int flags) {
            if (res >= 0 && !registered) { // a registered file goes with the ring's table
                Descriptors.close(res);
            }
        }
    }

    /**
     * The whole of the file at {@code path}, in one request: OPENAT, the stat of the new fd (a direct statx(2) on
     * a local file system, else the ring's STATX), then READs of up to {@link #CHUNK} bytes into a pooled buffer,
     * each copied to the answer's array, the last one hard-linked to the CLOSE: a file of up to one chunk takes
     * two round trips. It reads the size the stat gave (less if the file ends sooner). The fd is closed whatever
     * happens, and the answer comes once it is.
     */
    static final class ReadAll extends PathOp<ByteString> {
        /** The most bytes one READ takes: a small file's all at once. */
        static final int CHUNK = 128 * 1024;

        private enum Phase { OPEN, STAT, READ, CLOSE }

        private final int chunk;
        private final boolean statOnRing;
        private Phase phase = Phase.OPEN;
        private int fd = -1;
        /** Whether a CLOSE of the fd has gone to the kernel: then only its completion, or its drain, closes it. */
        private boolean closeSubmitted;
        private byte[] data;
        private int read;
        /** Why the request failed, answered once the fd is closed; null while it goes well. */
        private RuntimeException failure;

        /** {@code maxIoSize} bounds a READ; {@code statOnRing}: the file may be on a remote file system. */
        ReadAll(Path path, int maxIoSize, boolean statOnRing, ActorRef<StatusReply<ByteString>> replyTo) {
            super(path, path.toString(), Math.max(Statx.SIZE, Math.min(CHUNK, maxIoSize)), replyTo);
            this.chunk = Math.min(CHUNK, maxIoSize);
            this.statOnRing = statOnRing;
        }

        @Override
        protected Opcode opcode() {
            return switch (phase) {
                case OPEN -> Opcode.OPENAT;
                case STAT -> Opcode.STATX;
                case READ -> Opcode.READ;
                case CLOSE -> Opcode.CLOSE;
            };
        }

        /** The READ of the rest of the file and the CLOSE go as one chain. */
        @Override
        protected int chainLength() {
            return phase == Phase.READ && data.length - read <= chunk ? 2 : 1;
        }

        @Override
        protected void prepare(Sqe sqe) {
            prepare(sqe, 0);
        }

        @Override
        protected void prepare(Sqe sqe, int step) {
            switch (step == 1 ? Phase.CLOSE : phase) {
                case OPEN -> sqe.prepOpenat(OpFlags.AT_FDCWD, pathAddress(), OpFlags.O_RDONLY | OpFlags.O_CLOEXEC, 0);
                case STAT -> sqe.prepStatx(fd, Statx.emptyPath(), OpFlags.AT_EMPTY_PATH, OpFlags.STATX_BASIC_STATS,
                        extraAddress());
                case READ -> sqe.prepRead(fd, extraAddress(), Math.min(chunk, data.length - read), read);
                case CLOSE -> {
                    sqe.prepClose(fd);
                    closeSubmitted = true;
                }
            }
        }

        @Override
        protected int link(int step) {
            return SqeFlags.IO_HARDLINK; // the close runs whatever the read brought
        }

        @Override
        protected ByteString result(int res) {
            throw new IllegalStateException("a ReadAll answers by its phases");
        }

        /** Each phase's completion leads to the next; the request is answered once its fd is closed. */
        @Override
        protected boolean complete(int step, int res, int flags, int ringFlags) {
            try {
                switch (step == 1 ? Phase.CLOSE : phase) {
                    case OPEN -> opened(res, ringFlags);
                    case STAT -> statted(res, ringFlags);
                    case READ -> readSome(res, ringFlags);
                    case CLOSE -> closed(res, ringFlags);
                }
            } catch (RuntimeException e) {
                failure = e;
                phase = Phase.CLOSE;
            }
            if (!endsSubmission()) {
                return true; // the CLOSE linked behind this READ is still to come
            }
            if (fd < 0) {
                answer(failure != null ? StatusReply.error(failure)
                        : StatusReply.success(ByteString.fromArrayUnsafe(data, 0, read)));
                markAnswered();
                return true;
            }
            return false; // on to the next phase
        }

        private void opened(int res, int ringFlags) {
            if (res < 0) {
                throw UringException.ofResult(Opcode.OPENAT, res, target(), ringFlags);
            }
            fd = res;
            if (statOnRing) {
                phase = Phase.STAT;
            } else {
                Statx.ofOpenFile(fd, extraAddress(), target());
                sized();
            }
        }

        private void statted(int res, int ringFlags) {
            if (res < 0) {
                throw UringException.ofResult(Opcode.STATX, res, target(), ringFlags);
            }
            sized();
        }

        /** The stat is in the room after the path: the array for the whole file, then the reads. */
        private void sized() {
            FileStat stat = FileStat.from(extraBytes(0, Statx.SIZE));
            if (stat.isDirectory()) { // as its read would say, whatever size the file system gives a directory
                throw UringException.ofResult(Opcode.READ, -Errno.EISDIR, target(), 0);
            }
            long size = stat.size();
            if (size > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException(target() + " has " + size + " bytes: more than a ByteString holds");
            }
            data = new byte[(int) size];
            phase = size == 0 ? Phase.CLOSE : Phase.READ;
        }

        private void readSome(int res, int ringFlags) {
            if (res < 0) {
                throw UringException.ofResult(Opcode.READ, res, target(), ringFlags);
            }
            lease.buffer().asByteBuffer().get(extra, data, read, res);
            read += res;
            if (res == 0 || read == data.length) {
                phase = Phase.CLOSE;
            }
        }

        private void closed(int res, int ringFlags) {
            fd = -1;
            if (res < 0 && failure == null) {
                failure = UringException.ofResult(Opcode.CLOSE, res, target(), ringFlags);
            }
        }

        /** The ring failed under the request, or it never reached the kernel: an fd no CLOSE has taken is closed. */
        @Override
        protected void answer(StatusReply<ByteString> reply) {
            if (fd >= 0 && !closeSubmitted) {
                Descriptors.close(fd);
                fd = -1;
            }
            super.answer(reply);
        }

        /** While the ring drains: an fd opened then, or one whose CLOSE was cancelled, is closed here. */
        @Override
        protected void drained(int step, int res, int flags) {
            boolean close = step == 1 || phase == Phase.CLOSE && closeSubmitted;
            if (phase == Phase.OPEN && step == 0 && res >= 0) {
                Descriptors.close(res);
            } else if (close && fd >= 0) {
                if (res < 0) {
                    Descriptors.close(fd);
                }
                fd = -1;
            }
        }
    }

    /**
     * A file read or write with a buffer of its own: a registered one where one fits and is free (not for polled
     * files, whose ring has none), else one from the pool.
     */
    abstract static class PooledFileOp<T> extends ReplyOp<T> {
        final FileHandle file;
        final long position;
        final int length;
        BufferLease lease;

        PooledFileOp(FileHandle file, long position, int length, ActorRef<StatusReply<T>> replyTo) {
            super(replyTo);
            this.file = file;
            this.position = position;
            this.length = length;
        }

        @Override
        protected Admission admission() {
            return Admission.REQUEST;
        }

        /** A polled file's ring has no registered buffers. */
        @Override
        protected BufferLease acquire(BufferPool pool) {
            lease = file.polled() ? pool.lease(length) : pool.leaseFixedOrPooled(length);
            return lease;
        }

        /** The registered buffer's index, or -1 for a pooled one. */
        int fixedIndex() {
            return lease.fixedIndex();
        }

        @Override
        protected boolean polled() {
            return file.polled();
        }

        /** A registered file is named by its slot: FIXED_FILE. */
        void fileFlags(Sqe sqe) {
            if (file.registered()) {
                sqe.flags(SqeFlags.FIXED_FILE);
            }
        }

        /** A file read or write completes in a time a waiting strategy can learn; a polled one is polled anyway. */
        @Override
        protected int latencyKind() {
            return file.polled() ? -1 : opcode().ordinal();
        }

        @Override
        protected String target() {
            return file.path().toString();
        }
    }

    /** A read into the op's buffer; what it answers with, its subclass says. */
    abstract static class FileRead<T> extends PooledFileOp<T> {
        FileRead(FileHandle file, long position, int length, ActorRef<StatusReply<T>> replyTo) {
            super(file, position, length, replyTo);
        }

        @Override
        protected Opcode opcode() {
            return fixedIndex() >= 0 ? Opcode.READ_FIXED : Opcode.READ;
        }

        @Override
        protected void prepare(Sqe sqe) {
            if (fixedIndex() >= 0) {
                sqe.prepReadFixed(file.fd(), lease.address(), length, position, fixedIndex());
            } else {
                sqe.prepRead(file.fd(), lease.address(), length, position);
            }
            fileFlags(sqe);
        }
    }

    /** A read answered with a copy of the bytes read. */
    static class Read extends FileRead<ByteString> {
        Read(FileHandle file, long position, int length, ActorRef<StatusReply<ByteString>> replyTo) {
            super(file, position, length, replyTo);
        }

        @Override
        protected ByteString result(int res) {
            byte[] bytes = new byte[res];
            lease.buffer().read(0, bytes, 0, res);
            return ByteString.fromArrayUnsafe(bytes);
        }
    }

    /**
     * A read answered with what a reader makes of the bytes read, in the op's own buffer: nothing is copied
     * unless the reader copies. The view is read-only and lives only while the reader runs, before the buffer goes
     * back to its pool.
     */
    static final class ReadWith<T> extends FileRead<T> {
        private final Function<ByteBuffer, T> reader;

        ReadWith(FileHandle file, long position, int length, Function<ByteBuffer, T> reader,
                 ActorRef<StatusReply<T>> replyTo) {
            super(file, position, length, replyTo);
            this.reader = reader;
        }

        @Override
        protected T result(int res) {
            return reader.apply(lease.buffer().lentView(res)); // the reader keeps what it returns, never the view
        }
    }

    /** One read of a {@link RingProtocol.ReadBatch}: its answer goes into the batch's, in its place. */
    static final class BatchRead extends Read {
        private final BatchAnswer batch;
        private final int index;

        BatchRead(FileHandle file, long position, int length, BatchAnswer batch, int index) {
            super(file, position, length, null);
            this.batch = batch;
            this.index = index;
        }

        @Override
        protected void answer(StatusReply<ByteString> reply) {
            batch.answer(index, reply);
        }
    }

    /** Writes until all is written: a short write is submitted again for the rest. */
    static final class Write extends PooledFileOp<Integer> {
        private final ByteString data;
        private int written;

        Write(FileHandle file, long position, ByteString data, ActorRef<StatusReply<Integer>> replyTo) {
            super(file, position, data.size(), replyTo);
            this.data = data;
        }

        @Override
        protected BufferLease acquire(BufferPool pool) {
            super.acquire(pool);
            data.copyToBuffer(lease.buffer().asByteBuffer().clear());
            return lease;
        }

        @Override
        protected Opcode opcode() {
            return fixedIndex() >= 0 ? Opcode.WRITE_FIXED : Opcode.WRITE;
        }

        @Override
        protected void prepare(Sqe sqe) {
            if (fixedIndex() >= 0) {
                sqe.prepWriteFixed(file.fd(), lease.address() + written, length - written, position + written,
                        fixedIndex());
            } else {
                sqe.prepWrite(file.fd(), lease.address() + written, length - written, position + written);
            }
            fileFlags(sqe);
        }

        @Override
        protected boolean done(int res) {
            written += res;
            return written >= length || res == 0;
        }

        @Override
        protected Integer result(int res) {
            return written;
        }
    }

    /**
     * STATX of a path, or of an open file (its fd, the empty path and AT_EMPTY_PATH: whatever its path is now); the
     * kernel writes its answer after the path. It always runs in a kernel worker thread, never on the ring's.
     */
    abstract static class StatxOp<T> extends PathOp<T> {
        private final int dirfd;
        private final int flags;

        /** Of the file at {@code path}. */
        StatxOp(Path path, ActorRef<StatusReply<T>> replyTo) {
            super(path, path.toString(), Statx.SIZE, replyTo);
            this.dirfd = OpFlags.AT_FDCWD;
            this.flags = 0;
        }

        /** Of the open {@code file}, which must not be registered: STATX takes no FIXED_FILE. */
        StatxOp(FileHandle file, ActorRef<StatusReply<T>> replyTo) {
            super(file.path(), "", Statx.SIZE, replyTo);
            this.dirfd = file.fd();
            this.flags = OpFlags.AT_EMPTY_PATH;
        }

        @Override
        protected Opcode opcode() {
            return Opcode.STATX;
        }

        @Override
        protected void prepare(Sqe sqe) {
            sqe.prepStatx(dirfd, pathAddress(), flags, OpFlags.STATX_BASIC_STATS, extraAddress());
        }

        /** The {@code struct statx} the kernel wrote. */
        ByteBuffer statx() {
            return extraBytes(0, Statx.SIZE);
        }
    }

    /** STATX answered with a {@link FileStat}. */
    static final class Stat extends StatxOp<FileStat> {
        Stat(Path path, ActorRef<StatusReply<FileStat>> replyTo) {
            super(path, replyTo);
        }

        Stat(FileHandle file, ActorRef<StatusReply<FileStat>> replyTo) {
            super(file, replyTo);
        }

        @Override
        protected FileStat result(int res) {
            return FileStat.from(statx());
        }
    }

    /**
     * STATX of a file just opened for {@link RingProtocol.OpenBeneathWithStat} where its stat may ask a server: a
     * kernel worker waits for it, not the ring's thread. Answered with the file and its stat; a STATX that fails
     * closes the file ({@code close}), and is the answer.
     */
    static final class StatOpened extends StatxOp<OpenedFile> {
        private final FileHandle file;
        private final OpenFiles files;
        private final Consumer<FileHandle> close;

        StatOpened(FileHandle file, OpenFiles files, Consumer<FileHandle> close,
                   ActorRef<StatusReply<OpenedFile>> replyTo) {
            super(file, replyTo);
            this.file = file;
            this.files = files;
            this.close = close;
        }

        @Override
        protected OpenedFile result(int res) {
            return new OpenedFile(file, FileStat.from(statx()));
        }

        @Override
        protected void answer(StatusReply<OpenedFile> reply) {
            if (reply.isError() && files.closing(file)) {
                close.accept(file);
            }
            super.answer(reply);
        }
    }

    /** STATX of a file a {@link DirectOpen} opened: its device ({@code stx_dev_major} @136, minor @140) goes on. */
    static final class FileDevice extends StatxOp<DeviceNumber> {
        private final DirectOpen open;

        FileDevice(FileHandle file, DirectOpen open) {
            super(file, null);
            this.open = open;
        }

        @Override
        protected DeviceNumber result(int res) {
            ByteBuffer statx = statx();
            return new DeviceNumber(statx.getInt(136), statx.getInt(140));
        }

        @Override
        protected void answer(StatusReply<DeviceNumber> reply) {
            open.deviceRead(reply);
        }
    }
}
