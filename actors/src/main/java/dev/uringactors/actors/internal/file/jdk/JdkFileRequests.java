package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.PlainFuture;
import dev.uringactors.actors.RingFailedException;
import dev.uringactors.actors.RingOverloadedException;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.OpenedFile;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.actors.internal.file.CallBounds;
import dev.uringactors.actors.internal.file.FileCalls;
import dev.uringactors.actors.internal.file.FileRequests;
import dev.uringactors.ring.Opcode;
import org.apache.pekko.Done;
import org.apache.pekko.util.ByteString;
import scala.util.control.NonFatal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The file protocol on the JDK backend, carried out with JDK file channels on the dispatcher for blocking file
 * I/O ({@code uring.jdk.file-dispatcher}): each request is checked at once, as the ring's actor checks it, takes
 * its file ({@link JdkOpenFile}) on the caller's thread, and runs as one task of that dispatcher, whose thread
 * completes its stage; a caller that is itself such a thread finishing a call runs the next in place
 * ({@link InPlaceRunner}). Each request completes once, also when the dispatcher refuses it. Each ring index takes
 * as many unanswered requests as a ring's admission would ({@link CallBounds}), a close always: the dispatcher's
 * queue has no bound of its own. {@code UringFiles} calls it directly; the file actors ({@link JdkFileActor})
 * answer their messages with it.
 */
public final class JdkFileRequests implements FileCalls {
    private final JdkOpenFiles files;
    private final Executor io;
    /** Runs the callbacks a caller asks to run apart, naming no executor ({@link PlainFuture}). */
    private final Executor async;
    private final InPlaceRunner runner;
    private final int maxIoSize;
    private final CallBounds bounds;
    /** Logs, once for the system, that REGISTERED is dropped. */
    private final Runnable registeredIgnored;

    JdkFileRequests(JdkOpenFiles files, Executor io, Executor async, int maxIoSize, CallBounds bounds,
                    Runnable registeredIgnored) {
        this.files = files;
        this.io = io;
        this.async = async;
        this.runner = new InPlaceRunner(io);
        this.maxIoSize = maxIoSize;
        this.bounds = bounds;
        this.registeredIgnored = registeredIgnored;
    }

    @Override
    public CompletionStage<FileHandle> open(int ring, Path path, Set<? extends OpenOption> options) {
        boolean direct = options.contains(UringOpenOption.DIRECT);
        return withOptions(options, jdkOptions -> call(ring, Opcode.OPENAT, path, null,
                none -> files.opened(JdkFileCalls.open(path, jdkOptions), path, direct, ring)));
    }

    @Override
    public CompletionStage<FileHandle> openBeneath(FileHandle directory, Path path, Set<? extends OpenOption> options) {
        boolean direct = options.contains(UringOpenOption.DIRECT);
        Path shown = directory.path().resolve(path);
        return withOptions(options, jdkOptions -> onFile(directory, Opcode.OPENAT2, shown,
                held -> files.opened(JdkFileCalls.openBeneath(directory.path(), path, jdkOptions, shown.toString()),
                        shown, direct, directory.ring())));
    }

    /** {@link #openBeneath}, then the stat of the file it opened; a stat that fails closes the file, and answers. */
    @Override
    public CompletionStage<OpenedFile> openBeneathWithStat(FileHandle directory, Path path,
                                                           Set<? extends OpenOption> options) {
        CompletableFuture<OpenedFile> answer = new PlainFuture<>(async);
        openBeneath(directory, path, options).whenComplete((file, openFailed) -> {
            if (openFailed != null) {
                answer.completeExceptionally(openFailed);
                return;
            }
            stat(file).whenComplete((stat, statFailed) -> {
                if (statFailed == null) {
                    answer.complete(new OpenedFile(file, stat));
                } else {
                    close(file).whenComplete((closed, e) -> answer.completeExceptionally(statFailed));
                }
            });
        });
        return answer;
    }

    /**
     * {@code open} with the JDK's options for a request's, or the request refused when they are wrong;
     * REGISTERED, which means nothing here, is said once.
     */
    private CompletionStage<FileHandle> withOptions(Set<? extends OpenOption> requested,
                                                    Function<Set<OpenOption>, CompletionStage<FileHandle>> open) {
        if (requested.contains(UringOpenOption.REGISTERED)) {
            registeredIgnored.run();
        }
        Set<OpenOption> options;
        try {
            options = JdkOpenOptions.of(requested);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return open.apply(options);
    }

    @Override
    public CompletionStage<ByteString> read(FileHandle file, long position, int length) {
        IllegalArgumentException refused = FileRequests.readRefusal(position, length, maxIoSize);
        return refused != null ? refuse(file, refused)
                : onFile(file, Opcode.READ, null, f -> JdkFileCalls.read(f, position, length));
    }

    @Override
    public <T> CompletionStage<T> read(FileHandle file, long position, int length, Function<ByteBuffer, T> reader) {
        IllegalArgumentException refused = FileRequests.readRefusal(position, length, maxIoSize);
        return refused != null ? refuse(file, refused)
                : onFile(file, Opcode.READ, null, f -> JdkFileCalls.readLent(f, position, length, reader));
    }

    /** The reads of a batch one after another as one task: one answer, the first failure or all of them. */
    @Override
    public CompletionStage<List<ByteString>> read(FileHandle file, long[] positions, int length) {
        long[] copy = positions.clone(); // read later, on the dispatcher
        IllegalArgumentException refused = FileRequests.batchRefusal(copy, length, maxIoSize);
        if (refused != null) {
            return refuse(file, refused);
        }
        return onFile(file, Opcode.READ, null, f -> {
            List<ByteString> results = new ArrayList<>(copy.length);
            for (long position : copy) {
                results.add(JdkFileCalls.read(f, position, length));
            }
            return results;
        });
    }

    @Override
    public CompletionStage<Integer> write(FileHandle file, long position, ByteString data) {
        IllegalArgumentException refused = FileRequests.writeRefusal(position, data.size(), maxIoSize);
        return refused != null ? refuse(file, refused)
                : onFile(file, Opcode.WRITE, null, f -> JdkFileCalls.write(f, position, data));
    }

    @Override
    public CompletionStage<Done> fsync(FileHandle file, boolean dataOnly) {
        return onFile(file, Opcode.FSYNC, null, f -> {
            f.channel().force(!dataOnly);
            return Done.getInstance();
        });
    }

    @Override
    public CompletionStage<ByteString> readAll(int ring, Path path) {
        return call(ring, Opcode.READ, path, null, none -> ByteString.fromArrayUnsafe(Files.readAllBytes(path)));
    }

    @Override
    public CompletionStage<FileStat> stat(int ring, Path path) {
        return call(ring, Opcode.STATX, path, null, none -> JdkStat.of(path));
    }

    @Override
    public CompletionStage<FileStat> stat(FileHandle file) {
        return onFile(file, Opcode.STATX, null, JdkOpenFile::stat);
    }

    /**
     * Closes the file once the requests taken before this close are done (the ring's CLOSE lets them complete);
     * completes then. The close is not refused, even by a dispatcher that is shutting down.
     */
    @Override
    public CompletionStage<Done> close(FileHandle file) {
        JdkOpenFile open = files.closing(file);
        if (open == null) {
            return CompletableFuture.failedFuture(new ClosedChannelException());
        }
        CompletableFuture<Done> answer = new PlainFuture<>(async);
        Runnable close = () -> open.closeWhenUnused().whenComplete((v, e) -> {
            if (e == null) {
                answer.complete(Done.getInstance());
            } else {
                answer.completeExceptionally(JdkErrors.of(Opcode.CLOSE, file.path().toString(), (Exception) e));
            }
        });
        try {
            io.execute(close);
        } catch (RejectedExecutionException e) {
            close.run();
        }
        return answer;
    }

    /**
     * Runs {@code call} on the open {@code file}, taken for it here and given back after; a closed file is refused
     * with a {@link ClosedChannelException}. {@code target} names the call in errors, the file's path when null.
     */
    private <T> CompletionStage<T> onFile(FileHandle file, Opcode op, Path target, FileCall<T> call) {
        JdkOpenFile open = files.use(file);
        if (open == null) {
            return CompletableFuture.failedFuture(new ClosedChannelException());
        }
        return call(file.ring(), op, target != null ? target : file.path(), open, call);
    }

    /**
     * Runs {@code call} on the file dispatcher (or in place, {@link InPlaceRunner}) as a {@link FileTask}, which
     * completes the stage returned, if ring index {@code ring} has room for it; refuses it at once, giving
     * {@code taken} back, if not. A dispatcher that is shut down fails it as ring {@code ring}'s end.
     */
    private <T> CompletionStage<T> call(int ring, Opcode op, Path target, JdkOpenFile taken, FileCall<T> call) {
        RingOverloadedException overloaded = bounds.take(ring);
        if (overloaded != null) {
            if (taken != null) {
                taken.release();
            }
            return CompletableFuture.failedFuture(overloaded);
        }
        FileTask<T> task = new FileTask<>(new PlainFuture<>(async), op, target, taken, call, bounds, ring);
        try {
            runner.run(task);
        } catch (RejectedExecutionException e) { // the dispatcher is shutting down with the system
            task.fail(new RingFailedException(ring, e));
        }
        return task.answer;
    }

    /**
     * One request's call and its answer: completed with the call's result or its failure, the JDK's as the ring's
     * would be ({@link JdkErrors}), any other as it is (a reader's, also an {@link Error} such as a failed assert;
     * not the JVM's own, which {@link NonFatal} tells apart). {@code taken}, the file the call runs on (null for a
     * call on a path), is released once the answer has completed, and so is the request's place on ring
     * {@code ring} in {@code bounds}. One object a request, as reads are many.
     */
    private static final class FileTask<T> implements Runnable {
        private final CompletableFuture<T> answer;
        private final Opcode op;
        private final Path target;
        private final JdkOpenFile taken;
        private final FileCall<T> call;
        private final CallBounds bounds;
        private final int ring;

        FileTask(CompletableFuture<T> answer, Opcode op, Path target, JdkOpenFile taken, FileCall<T> call,
                 CallBounds bounds, int ring) {
            this.answer = answer;
            this.op = op;
            this.target = target;
            this.taken = taken;
            this.call = call;
            this.bounds = bounds;
            this.ring = ring;
        }

        @Override
        public void run() {
            T result;
            try {
                result = call.run(taken);
            } catch (IOException | NonReadableChannelException | NonWritableChannelException e) {
                fail(JdkErrors.of(op, target.toString(), e));
                return;
            } catch (RuntimeException | Error e) { // a reader's bug, answered as the ring answers it
                if (!NonFatal.apply(e)) {
                    release();
                    throw e; // the JVM's own trouble (out of memory, a class that cannot load): not the call's
                }
                fail(e);
                return;
            }
            try {
                answer.complete(result);
            } finally {
                release(); // after the answer: a close waiting for this call completes once its callbacks have run
            }
        }

        void fail(Throwable failure) {
            try {
                answer.completeExceptionally(failure);
            } finally {
                release();
            }
        }

        private void release() {
            if (taken != null) {
                taken.release();
            }
            bounds.release(ring);
        }
    }

    /** A refused request with the file it names: a closed file is refused as such first, as on the ring. */
    private <T> CompletionStage<T> refuse(FileHandle file, Exception refused) {
        return CompletableFuture.failedFuture(files.isOpen(file) ? refused : new ClosedChannelException());
    }

    /** A blocking call of the JDK's: on an open file, or with none (null) on a path. */
    private interface FileCall<T> {
        T run(JdkOpenFile file) throws IOException;
    }
}
