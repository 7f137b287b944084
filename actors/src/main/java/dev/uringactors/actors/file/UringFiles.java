package dev.uringactors.actors.file;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.RingProtocol.Command;
import dev.uringactors.actors.internal.file.FileCalls;
import dev.uringactors.actors.internal.file.FileRings;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.util.ByteString;

import java.nio.ByteBuffer;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Files through io_uring for code that is not an actor: each call asks a ring's file actor and completes with the
 * result or fails with the typed error. A file's requests go to the ring it was opened on. The stages complete on
 * that ring's thread, so a callback attached with {@code thenApply} or {@code whenComplete} runs there, with no
 * thread hop: keep it short, or attach it with an {@code ...Async} method and an executor of your own.
 *
 * <p>On the JDK backend ({@code uring.backend}) each call is one JDK file channel call run as one task of the
 * dispatcher {@code uring.jdk.file-dispatcher}, with no actor between, whose thread completes the stage; with the
 * same results and errors. A call made on such a thread (the next read of a chain, in a callback or a reader) runs
 * there and then, so its stage may be complete when it is returned; several calls made by one callback run one
 * after another; up to 32 in a row before one waits its turn on the dispatcher again. What differs: handles carry
 * no descriptor ({@link FileHandle#NO_DESCRIPTOR}), so the stat of an open file is the stat of its path;
 * {@link UringOpenOption#REGISTERED} is ignored (logged once); a batch's reads run in turn; a reader runs on a
 * dispatcher thread with a view of that thread's buffer; a close waits for the calls made before it, but not for
 * messages told to a file actor ({@link #ring(int)}) before it, which it may refuse as closed.
 */
public final class UringFiles {
    private final UringExtension uring;
    private final FileRings files;
    private final FileCalls calls;

    private UringFiles(UringExtension uring, FileRings files, FileCalls calls) {
        this.uring = uring;
        this.files = files;
        this.calls = calls;
    }

    /** The file API of a system's rings. */
    public static UringFiles get(ActorSystem<?> system) {
        UringExtension uring = UringExtension.get(system);
        FileRings files = FileRings.get(system);
        return new UringFiles(uring, files, files.calls());
    }

    /**
     * Ring {@code i}'s file actor, for actors: send it {@link RingProtocol} requests. An actor spawned on that
     * ring ({@code UringExtension.dispatcher(i)}) gets its answers with no thread hop.
     */
    public ActorRef<Command> ring(int i) {
        return files.actor(i);
    }

    /** Opens {@code path} on the next ring in turn (READ when no option says otherwise). */
    public CompletionStage<FileHandle> open(Path path, OpenOption... options) {
        return calls.open(uring.nextRing(), path, Set.copyOf(Arrays.asList(options)));
    }

    /**
     * Opens {@code path} relative to the open directory {@code directory}, on that directory's ring, and only if
     * it lies beneath it ({@link RingProtocol.OpenBeneath}): an escape fails with a {@code UringException} (EXDEV).
     */
    public CompletionStage<FileHandle> openBeneath(FileHandle directory, Path path, OpenOption... options) {
        return calls.openBeneath(directory, path, Set.copyOf(Arrays.asList(options)));
    }

    /**
     * {@link #openBeneath}, and the stat of the file it opened, in one request ({@link
     * RingProtocol.OpenBeneathWithStat}, whose stat is a direct call on the ring's thread: not for files on a
     * network or FUSE file system). A stat that fails closes the file, and is the answer.
     */
    public CompletionStage<OpenedFile> openBeneathWithStat(FileHandle directory, Path path, OpenOption... options) {
        return calls.openBeneathWithStat(directory, path, Set.copyOf(Arrays.asList(options)));
    }

    /** Reads up to {@code length} bytes at {@code position}; fewer at the end of the file. */
    public CompletionStage<ByteString> read(FileHandle file, long position, int length) {
        return calls.read(file, position, length);
    }

    /**
     * Reads up to {@code length} bytes at {@code position} and completes with what {@code reader} makes of them,
     * without copying them to the heap first ({@link RingProtocol.ReadWith}): the reader runs on the ring's thread
     * with a read-only view of the ring's buffer (on the JDK backend, of its dispatcher thread's), valid only while
     * it runs.
     */
    public <T> CompletionStage<T> read(FileHandle file, long position, int length, Function<ByteBuffer, T> reader) {
        return calls.read(file, position, length, reader);
    }

    /**
     * Reads up to {@code length} bytes at each of {@code positions} in one request: the reads go to the ring
     * together; completes with the results in the order of the positions, or with the first failure.
     */
    public CompletionStage<List<ByteString>> read(FileHandle file, long[] positions, int length) {
        return calls.read(file, positions, length);
    }

    /** Writes all of {@code data}; completes with the byte count. */
    public CompletionStage<Integer> write(FileHandle file, long position, ByteString data) {
        return calls.write(file, position, data);
    }

    /** Flushes the file's data and metadata to the device. */
    public CompletionStage<Done> fsync(FileHandle file) {
        return calls.fsync(file, false);
    }

    /**
     * The whole of the file at {@code path}, as {@code Files.readAllBytes} reads it, in one request of the next
     * ring in turn ({@link RingProtocol.ReadAll}: a file of up to 128 KiB in two round trips of the ring, where an
     * open, a stat, a read and a close take four requests).
     */
    public CompletionStage<ByteString> readAll(Path path) {
        return calls.readAll(uring.nextRing(), path);
    }

    /** The metadata of the file at {@code path}. */
    public CompletionStage<FileStat> stat(Path path) {
        return calls.stat(uring.nextRing(), path);
    }

    /** The metadata of the open {@code file} ({@link RingProtocol.StatFile}), from its ring. */
    public CompletionStage<FileStat> stat(FileHandle file) {
        return calls.stat(file);
    }

    /**
     * Closes the file. The CLOSE goes to the ring at once, not once the file's requests have completed: it queues
     * behind the requests sent before it (a CLOSE waits its turn at the admission limit, and is never refused), and
     * a request already in the kernel holds its own reference to the file, so each of those completes as if the
     * file were still open. A request sent with the handle after the close fails with
     * {@link java.nio.channels.ClosedChannelException}. Completes once the fd is closed.
     */
    public CompletionStage<Done> close(FileHandle file) {
        return calls.close(file);
    }
}
