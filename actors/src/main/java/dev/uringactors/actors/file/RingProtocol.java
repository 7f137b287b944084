package dev.uringactors.actors.file;

import dev.uringactors.actors.RingFailedException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;

import java.nio.file.OpenOption;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The messages a ring's file actor ({@link UringFiles#ring(int)}) takes. Each request is answered exactly once on
 * its {@code replyTo}: {@code StatusReply.success} with the result, or {@code StatusReply.error} with a
 * {@link dev.uringactors.ring.UringException} (errno, op, path, hint), an {@link IllegalArgumentException} for a
 * bad request, or a {@link RingFailedException} when the ring failed. Use {@code AskPattern.askWithStatus} to
 * get the result or the exception.
 */
public final class RingProtocol {
    private RingProtocol() {
    }

    /** What a ring's file actor takes. */
    public sealed interface Command permits Nop, Open, OpenBeneath, OpenBeneathWithStat, Read, ReadWith, ReadBatch,
            ReadAll, Write, Fsync, Stat, StatFile, Close {
    }

    /** Does nothing through the ring: measures it. */
    public record Nop(ActorRef<StatusReply<Done>> replyTo) implements Command {
    }

    /** Opens a file (READ when no option says otherwise; {@link UringOpenOption#DIRECT} for O_DIRECT). */
    public record Open(Path path, Set<? extends OpenOption> options, ActorRef<StatusReply<FileHandle>> replyTo)
            implements Command {
    }

    /**
     * Opens {@code path} relative to the open directory {@code directory}, and only if it lies beneath it: the
     * kernel fails the lookup (EXDEV) when any step of it, a {@code ..}, an absolute path or a symlink, would
     * leave the directory (openat2 with RESOLVE_BENEATH, 5.6). The way to open a file named by a client.
     */
    public record OpenBeneath(FileHandle directory, Path path, Set<? extends OpenOption> options,
                              ActorRef<StatusReply<FileHandle>> replyTo) implements Command {
    }

    /**
     * {@link OpenBeneath}, and the stat of the file it opened, in one request and one answer: the stat is a
     * direct statx(2) of the new descriptor on the ring's thread as the open completes (under a microsecond: the
     * open has just brought the inode into memory), not a STATX, which the kernel always hands to a worker
     * thread. For a file server: what to answer depends on the file's type, size and time. On a network or FUSE
     * file system, whose stat may ask a server, use {@link OpenBeneath} and {@link StatFile}. The file is opened
     * with a plain descriptor ({@link UringOpenOption#REGISTERED} is ignored: the stat needs a descriptor) on
     * this ring, even with {@link UringOpenOption#DIRECT}. A stat that fails closes the file and answers with why.
     */
    public record OpenBeneathWithStat(FileHandle directory, Path path, Set<? extends OpenOption> options,
                                      ActorRef<StatusReply<OpenedFile>> replyTo) implements Command {
    }

    /** Reads up to {@code length} bytes at {@code position}; fewer (or none) at the end of the file. */
    public record Read(FileHandle file, long position, int length, ActorRef<StatusReply<ByteString>> replyTo)
            implements Command {
    }

    /**
     * Reads up to {@code length} bytes at {@code position} and answers with what {@code reader} makes of them,
     * without copying them to the heap first: the reader gets a read-only view of the ring's own buffer, holding
     * the bytes read (fewer at the end of the file). The reader runs on the ring's thread, and the view lives only
     * while it runs: keep what it returns, never the view. A reader that throws answers with its exception.
     * For a parse, a checksum or a copy of the part wanted; a reader that blocks holds up the whole ring.
     */
    public record ReadWith<T>(FileHandle file, long position, int length, Function<ByteBuffer, T> reader,
                              ActorRef<StatusReply<T>> replyTo) implements Command {
    }

    /**
     * Reads up to {@code length} bytes at each of {@code positions}, all in one message (one SQE each, submitted
     * together); answers once, with the results in the order of the positions, or with the first failure. Do not
     * change the array after sending it.
     */
    public record ReadBatch(FileHandle file, long[] positions, int length,
                            ActorRef<StatusReply<List<ByteString>>> replyTo) implements Command {
    }

    /**
     * The whole of the file at {@code path}, as Java's {@code Files.readAllBytes} reads it, in one request: open,
     * stat (as {@link OpenBeneathWithStat} takes it), reads, close. A file of up to 128 KiB takes two round trips
     * of the ring: the open, then its read linked to its close. The size is the one the stat gave (less if the
     * file ends sooner); the file is closed before the answer, whatever happens.
     */
    public record ReadAll(Path path, ActorRef<StatusReply<ByteString>> replyTo) implements Command {
    }

    /** Writes all of {@code data} at {@code position}; answers with the byte count. */
    public record Write(FileHandle file, long position, ByteString data, ActorRef<StatusReply<Integer>> replyTo)
            implements Command {
    }

    /** fsync(2), or fdatasync(2) when {@code dataOnly}. */
    public record Fsync(FileHandle file, boolean dataOnly, ActorRef<StatusReply<Done>> replyTo) implements Command {
    }

    /** STATX of a path. */
    public record Stat(Path path, ActorRef<StatusReply<FileStat>> replyTo) implements Command {
    }

    /**
     * STATX of an open file, by its descriptor (AT_EMPTY_PATH): the very file that was opened, whatever its path
     * is now. The kernel runs it in a worker thread, so the ring's thread never waits on a file system that must
     * ask a server (NFS, FUSE); {@link FileStat#of(FileHandle)} is the direct call, for threads that may wait. A
     * registered file has no descriptor: refused with an {@code IllegalArgumentException}.
     */
    public record StatFile(FileHandle file, ActorRef<StatusReply<FileStat>> replyTo) implements Command {
    }

    /**
     * Closes a file with CLOSE, sent at once behind the file's earlier requests, which complete as if the file were
     * still open (each in the kernel holds its own reference to it); later requests with the handle fail with
     * {@link java.nio.channels.ClosedChannelException}.
     */
    public record Close(FileHandle file, ActorRef<StatusReply<Done>> replyTo) implements Command {
    }
}
