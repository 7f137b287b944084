package dev.uringactors.actors.file;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.RingProtocol.Command;
import dev.uringactors.actors.internal.file.FileRings;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;
import scala.concurrent.ExecutionContext;
import scala.jdk.javaapi.FutureConverters;

import java.nio.ByteBuffer;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Files through io_uring for code that is not an actor: each call asks a ring's file actor and completes with the
 * result or fails with the typed error. A file's requests go to the ring it was opened on. The stages complete on
 * that ring's thread, so a callback attached with {@code thenApply} or {@code whenComplete} runs there, with no
 * thread hop: keep it short, or attach it with an {@code ...Async} method and an executor of your own.
 *
 * <p>On the JDK backend ({@code uring.backend}) the same calls go to JDK file channels on the dispatcher
 * {@code uring.jdk.file-dispatcher}, whose threads complete the stages, with the same results and errors. What
 * differs: handles carry no descriptor ({@link FileHandle#NO_DESCRIPTOR}), so the stat of an open file is the
 * stat of its path; {@link UringOpenOption#REGISTERED} is ignored (logged once); a batch's reads run in turn.
 */
public final class UringFiles {
    /** Runs a callback on the thread that completes the future: the ring's, for an answer. */
    private static final ExecutionContext ON_ANSWERING_THREAD = ExecutionContext.fromExecutor(Runnable::run);
    private final UringExtension uring;
    private final FileRings files;
    private final Scheduler scheduler;
    private final Duration timeout;

    private UringFiles(UringExtension uring, FileRings files, Scheduler scheduler) {
        this.uring = uring;
        this.files = files;
        this.scheduler = scheduler;
        this.timeout = uring.settings().requestTimeout();
    }

    /** The file API of a system's rings. */
    public static UringFiles get(ActorSystem<?> system) {
        return new UringFiles(UringExtension.get(system), FileRings.get(system), system.scheduler());
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
        Set<OpenOption> set = Set.copyOf(Arrays.asList(options));
        return ask(uring.nextRing(), replyTo -> new RingProtocol.Open(path, set, replyTo));
    }

    /**
     * Opens {@code path} relative to the open directory {@code directory}, on that directory's ring, and only if
     * it lies beneath it ({@link RingProtocol.OpenBeneath}): an escape fails with a {@code UringException} (EXDEV).
     */
    public CompletionStage<FileHandle> openBeneath(FileHandle directory, Path path, OpenOption... options) {
        Set<OpenOption> set = Set.copyOf(Arrays.asList(options));
        return ask(directory.ring(), replyTo -> new RingProtocol.OpenBeneath(directory, path, set, replyTo));
    }

    /** Reads up to {@code length} bytes at {@code position}; fewer at the end of the file. */
    public CompletionStage<ByteString> read(FileHandle file, long position, int length) {
        return ask(file.ring(), replyTo -> new RingProtocol.Read(file, position, length, replyTo));
    }

    /**
     * Reads up to {@code length} bytes at {@code position} and completes with what {@code reader} makes of them,
     * without copying them to the heap first ({@link RingProtocol.ReadWith}): the reader runs on the ring's thread
     * with a read-only view of the ring's buffer, valid only while it runs.
     */
    public <T> CompletionStage<T> read(FileHandle file, long position, int length, Function<ByteBuffer, T> reader) {
        return ask(file.ring(), replyTo -> new RingProtocol.ReadWith<>(file, position, length, reader, replyTo));
    }

    /**
     * Reads up to {@code length} bytes at each of {@code positions} in one request: the reads go to the ring
     * together; completes with the results in the order of the positions, or with the first failure.
     */
    public CompletionStage<List<ByteString>> read(FileHandle file, long[] positions, int length) {
        long[] copy = positions.clone(); // the message must not change once sent
        return ask(file.ring(), replyTo -> new RingProtocol.ReadBatch(file, copy, length, replyTo));
    }

    /** Writes all of {@code data}; completes with the byte count. */
    public CompletionStage<Integer> write(FileHandle file, long position, ByteString data) {
        return ask(file.ring(), replyTo -> new RingProtocol.Write(file, position, data, replyTo));
    }

    /** Flushes the file's data and metadata to the device. */
    public CompletionStage<Done> fsync(FileHandle file) {
        return ask(file.ring(), replyTo -> new RingProtocol.Fsync(file, false, replyTo));
    }

    /** The metadata of the file at {@code path}. */
    public CompletionStage<FileStat> stat(Path path) {
        return ask(uring.nextRing(), replyTo -> new RingProtocol.Stat(path, replyTo));
    }

    /** The metadata of the open {@code file} ({@link RingProtocol.StatFile}), from its ring. */
    public CompletionStage<FileStat> stat(FileHandle file) {
        return ask(file.ring(), replyTo -> new RingProtocol.StatFile(file, replyTo));
    }

    /**
     * Closes the file. The CLOSE goes to the ring at once, not once the file's requests have completed: it queues
     * behind the requests sent before it (a CLOSE waits its turn at the admission limit, and is never refused), and
     * a request already in the kernel holds its own reference to the file, so each of those completes as if the
     * file were still open. A request sent with the handle after the close fails with
     * {@link java.nio.channels.ClosedChannelException}. Completes once the fd is closed.
     */
    public CompletionStage<Done> close(FileHandle file) {
        return ask(file.ring(), replyTo -> new RingProtocol.Close(file, replyTo));
    }

    /**
     * Asks ring {@code ring}'s file actor, and completes a plain future on the thread the answer arrives on. (The
     * ask's own stage runs even non-async callbacks on another thread: a hop to the common pool per callback,
     * and a new thread per callback where the JVM sees one CPU.)
     */
    private <T> CompletionStage<T> ask(int ring, Function<ActorRef<StatusReply<T>>, Command> request) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        FutureConverters.asScala(AskPattern.askWithStatus(files.actor(ring), request::apply, timeout, scheduler))
                .onComplete(result -> result.isSuccess() ? answer.complete(result.get())
                        : answer.completeExceptionally(result.failed().get()), ON_ANSWERING_THREAD);
        return answer;
    }
}
