package dev.uringactors.actors.stream;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.IOOperationIncompleteException;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.util.ByteString;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Reads a file in chunks through a ring, with a few reads in flight ahead of demand, emitted in order. */
final class FileSourceStage
        extends AbstractGraphStageWithMaterializedValue<SourceShape<ByteString>, CompletionStage<IOResult>> {
    private final Outlet<ByteString> out = Outlet.create("UringFileSource.out");
    private final SourceShape<ByteString> shape = SourceShape.of(out);
    private final Path path;
    private final int chunkSize;
    private final long startPosition;

    FileSourceStage(Path path, int chunkSize, long startPosition) {
        this.path = path;
        this.chunkSize = chunkSize;
        this.startPosition = startPosition;
    }

    @Override
    public SourceShape<ByteString> shape() {
        return shape;
    }

    @Override
    public Pair<GraphStageLogic, CompletionStage<IOResult>> createLogicAndMaterializedValuePair(Attributes attrs) {
        CompletableFuture<IOResult> result = new CompletableFuture<>();
        return Pair.create(new Logic(result), result);
    }

    private final class Logic extends GraphStageLogic {
        private final CompletableFuture<IOResult> result;
        private final ArrayDeque<CompletableFuture<ByteString>> reads = new ArrayDeque<>();
        private UringFiles files;
        private AsyncCallback<Object> progress;
        private FileHandle file;
        private long size;
        private long nextPosition;
        private long emitted;
        private Throwable failure;

        Logic(CompletableFuture<IOResult> result) {
            super(shape);
            this.result = result;
            setHandler(out, new AbstractOutHandler() {
                @Override
                public void onPull() {
                    pump();
                }
            });
        }

        @Override
        public void preStart() {
            files = UringFiles.get(Adapter.toTyped(materializer().system()));
            progress = createAsyncCallback(ignored -> pump());
            AsyncCallback<Pair<FileHandle, Long>> opened = createAsyncCallback(p -> {
                file = p.first();
                size = p.second();
                nextPosition = startPosition;
                pump();
            });
            AsyncCallback<Throwable> failed = createAsyncCallback(this::fail);
            files.open(path).thenCombine(files.stat(path), (handle, stat) -> Pair.create(handle, stat.size()))
                    .whenComplete((p, e) -> {
                        if (e != null) {
                            failed.invoke(e);
                        } else {
                            opened.invoke(p);
                        }
                    });
        }

        private void pump() {
            if (file == null || failure != null) {
                return;
            }
            while (reads.size() < UringFileIO.IN_FLIGHT && nextPosition < size) {
                CompletableFuture<ByteString> read = files.read(file, nextPosition, chunkSize).toCompletableFuture();
                nextPosition += chunkSize;
                reads.add(read);
                read.whenComplete((bytes, e) -> progress.invoke(read));
            }
            while (isAvailable(out) && !reads.isEmpty() && reads.peek().isDone()) {
                CompletableFuture<ByteString> read = reads.poll();
                if (read.isCompletedExceptionally()) {
                    read.exceptionally(e -> {
                        fail(e);
                        return null;
                    });
                    return;
                }
                ByteString bytes = read.join();
                if (bytes.isEmpty()) {
                    nextPosition = size; // the file became shorter: end here
                    reads.clear();
                    break;
                }
                emitted += bytes.size();
                push(out, bytes);
            }
            if (reads.isEmpty() && nextPosition >= size) {
                completeStage();
            }
        }

        private void fail(Throwable e) {
            failure = UringFileIO.cause(e);
            result.completeExceptionally(new IOOperationIncompleteException(emitted, failure));
            failStage(failure);
        }

        @Override
        public void postStop() {
            if (file != null) {
                files.close(file); // reads still in flight hold their own reference to the file
            }
            result.complete(IOResult.createSuccessful(emitted));
        }
    }
}
