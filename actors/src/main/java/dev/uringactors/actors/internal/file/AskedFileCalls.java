package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.PlainFuture;
import dev.uringactors.actors.RingOverloadedException;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.OpenedFile;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.RingProtocol.Command;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
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
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * The file calls as asks of the rings' file actors: each call is a request to the actor of the ring its file is
 * on, and completes on the thread the answer arrives on (the ring's), or fails once {@code timeout} has passed
 * with no answer (an actor that no longer exists). Each ring takes as many unanswered calls as its admission does
 * ({@link CallBounds}), a close always: the asks never pile up in a file actor's mailbox, which has no bound.
 */
public final class AskedFileCalls implements FileCalls {
    /** Runs a callback on the thread that completes the future: the ring's, for an answer. */
    private static final ExecutionContext ON_ANSWERING_THREAD = ExecutionContext.fromExecutor(Runnable::run);
    private final IntFunction<ActorRef<Command>> actors;
    private final Scheduler scheduler;
    private final Executor async;
    private final Duration timeout;
    private final CallBounds bounds;

    /** {@code async} runs the callbacks a caller asks to run apart, naming no executor ({@link PlainFuture}). */
    AskedFileCalls(IntFunction<ActorRef<Command>> actors, Scheduler scheduler, Executor async, Duration timeout,
                   CallBounds bounds) {
        this.actors = actors;
        this.scheduler = scheduler;
        this.async = async;
        this.timeout = timeout;
        this.bounds = bounds;
    }

    @Override
    public CompletionStage<FileHandle> open(int ring, Path path, Set<? extends OpenOption> options) {
        return ask(ring, replyTo -> new RingProtocol.Open(path, options, replyTo));
    }

    @Override
    public CompletionStage<FileHandle> openBeneath(FileHandle directory, Path path, Set<? extends OpenOption> options) {
        return ask(directory.ring(), replyTo -> new RingProtocol.OpenBeneath(directory, path, options, replyTo));
    }

    @Override
    public CompletionStage<ByteString> readAll(int ring, Path path) {
        return ask(ring, replyTo -> new RingProtocol.ReadAll(path, replyTo));
    }

    @Override
    public CompletionStage<OpenedFile> openBeneathWithStat(FileHandle directory, Path path,
                                                           Set<? extends OpenOption> options) {
        return ask(directory.ring(),
                replyTo -> new RingProtocol.OpenBeneathWithStat(directory, path, options, replyTo));
    }

    @Override
    public CompletionStage<ByteString> read(FileHandle file, long position, int length) {
        return ask(file.ring(), replyTo -> new RingProtocol.Read(file, position, length, replyTo));
    }

    @Override
    public <T> CompletionStage<T> read(FileHandle file, long position, int length, Function<ByteBuffer, T> reader) {
        return ask(file.ring(), replyTo -> new RingProtocol.ReadWith<>(file, position, length, reader, replyTo));
    }

    @Override
    public CompletionStage<List<ByteString>> read(FileHandle file, long[] positions, int length) {
        long[] copy = positions.clone(); // the message must not change once sent
        return ask(file.ring(), replyTo -> new RingProtocol.ReadBatch(file, copy, length, replyTo));
    }

    @Override
    public CompletionStage<Integer> write(FileHandle file, long position, ByteString data) {
        return ask(file.ring(), replyTo -> new RingProtocol.Write(file, position, data, replyTo));
    }

    @Override
    public CompletionStage<Done> fsync(FileHandle file, boolean dataOnly) {
        return ask(file.ring(), replyTo -> new RingProtocol.Fsync(file, dataOnly, replyTo));
    }

    @Override
    public CompletionStage<FileStat> stat(int ring, Path path) {
        return ask(ring, replyTo -> new RingProtocol.Stat(path, replyTo));
    }

    @Override
    public CompletionStage<FileStat> stat(FileHandle file) {
        return ask(file.ring(), replyTo -> new RingProtocol.StatFile(file, replyTo));
    }

    @Override
    public CompletionStage<Done> close(FileHandle file) {
        return ask(file.ring(), replyTo -> new RingProtocol.Close(file, replyTo), () -> { });
    }

    /** Asks ring {@code ring}'s file actor if it has room for another call, or refuses the call at once. */
    private <T> CompletionStage<T> ask(int ring, Function<ActorRef<StatusReply<T>>, Command> request) {
        RingOverloadedException refused = bounds.take(ring);
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        return ask(ring, request, () -> bounds.release(ring));
    }

    /**
     * Asks ring {@code ring}'s file actor, and completes a plain future on the thread the answer arrives on, after
     * {@code answered} has run. (The ask's own stage runs even non-async callbacks on another thread: a hop to the
     * common pool per callback, and a new thread per callback where the JVM sees one CPU.)
     */
    private <T> CompletionStage<T> ask(int ring, Function<ActorRef<StatusReply<T>>, Command> request,
                                       Runnable answered) {
        PlainFuture<T> answer = new PlainFuture<>(async);
        FutureConverters.asScala(AskPattern.askWithStatus(actors.apply(ring), request::apply, timeout, scheduler))
                .onComplete(result -> {
                    answered.run();
                    return result.isSuccess() ? answer.complete(result.get())
                            : answer.completeExceptionally(result.failed().get());
                }, ON_ANSWERING_THREAD);
        return answer;
    }
}
