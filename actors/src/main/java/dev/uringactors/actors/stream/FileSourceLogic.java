package dev.uringactors.actors.stream;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.util.ByteString;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Reads a file in chunks through a ring, with a few reads in flight ahead of demand, emitted in order, until a
 * read comes back short: the end is found by reading, as Pekko's FileIO finds it, not by a stat of the path,
 * which could name another file by then.
 */
final class FileSourceLogic extends FileStageLogic {
    private final Outlet<ByteString> out;
    private final Path path;
    private final int chunkSize;
    private final ArrayDeque<CompletableFuture<ByteString>> reads = new ArrayDeque<>();
    private AsyncCallback<Object> progress;
    private long nextPosition;
    /** A read came back short: it reached the end of the file, and the stream ends after it. */
    private boolean endReached;

    FileSourceLogic(SourceShape<ByteString> shape, CompletableFuture<IOResult> result, Path path, int chunkSize,
                    long startPosition) {
        super(shape, result);
        this.out = shape.out();
        this.path = path;
        this.chunkSize = chunkSize;
        this.nextPosition = startPosition;
        setHandler(out, new AbstractOutHandler() {
            @Override
            public void onPull() {
                pump();
            }
        });
    }

    @Override
    CompletionStage<FileHandle> open(UringFiles files) {
        return files.open(path);
    }

    @Override
    public void preStart() {
        progress = createAsyncCallback(ignored -> pump());
        super.preStart();
    }

    @Override
    void onOpened() {
        pump();
    }

    private void pump() {
        if (file() == null) {
            return;
        }
        emitCompletedReads();
        if (isClosed(out)) {
            return; // a failed read failed the stage
        }
        readAhead();
        if (endReached && reads.isEmpty()) {
            completeStage();
        }
    }

    /** Emits, in order, the reads that have completed, while downstream wants them. */
    private void emitCompletedReads() {
        while (isAvailable(out) && !reads.isEmpty() && reads.peek().isDone()) {
            ByteString chunk;
            try {
                chunk = reads.poll().join();
            } catch (CompletionException e) {
                onFailure(UringFileIO.cause(e));
                return;
            }
            // The kernel completes a short read of a regular file, so a short one is the end of the file
            // (also when the file shrank since the reads were sent): what was read beyond it is dropped.
            if (chunk.size() < chunkSize) {
                endReached = true;
                reads.clear();
            }
            if (!chunk.isEmpty()) {
                bytes += chunk.size();
                push(out, chunk);
            }
        }
    }

    /** Keeps {@link UringFileIO#IN_FLIGHT} reads in flight ahead of demand until the end is found. */
    private void readAhead() {
        while (!endReached && reads.size() < UringFileIO.IN_FLIGHT) {
            CompletableFuture<ByteString> read = files().read(file(), nextPosition, chunkSize)
                    .toCompletableFuture();
            nextPosition += chunkSize;
            reads.add(read);
            read.whenComplete((chunk, e) -> progress.invoke(read));
        }
    }

    @Override
    public void postStop() {
        super.postStop();
        result.complete(IOResult.createSuccessful(bytes));
    }
}
