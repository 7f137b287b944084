package dev.uringactors.actors.stream;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.IOOperationIncompleteException;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.SinkShape;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.util.ByteString;

import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Writes each element at the next position through a ring, a few writes in flight (one when appending, where
 * the kernel, not the position, decides where the bytes go), then closes the file.
 */
final class FileSinkStage
        extends AbstractGraphStageWithMaterializedValue<SinkShape<ByteString>, CompletionStage<IOResult>> {
    private final Inlet<ByteString> in = Inlet.create("UringFileSink.in");
    private final SinkShape<ByteString> shape = SinkShape.of(in);
    private final Path path;
    private final Set<? extends OpenOption> options;

    FileSinkStage(Path path, Set<? extends OpenOption> options) {
        this.path = path;
        this.options = options;
    }

    @Override
    public SinkShape<ByteString> shape() {
        return shape;
    }

    @Override
    public Pair<GraphStageLogic, CompletionStage<IOResult>> createLogicAndMaterializedValuePair(Attributes attrs) {
        CompletableFuture<IOResult> result = new CompletableFuture<>();
        return Pair.create(new Logic(result), result);
    }

    private final class Logic extends GraphStageLogic {
        private final CompletableFuture<IOResult> result;
        private final int maxInFlight = options.contains(StandardOpenOption.APPEND) ? 1 : UringFileIO.IN_FLIGHT;
        private UringFiles files;
        private AsyncCallback<Integer> written;
        private AsyncCallback<Throwable> failed;
        private FileHandle file;
        private long position;
        private long bytes;
        private int inFlight;
        private boolean upstreamDone;
        private boolean closing;

        Logic(CompletableFuture<IOResult> result) {
            super(shape);
            this.result = result;
            setHandler(in, new AbstractInHandler() {
                @Override
                public void onPush() {
                    write(grab(in));
                }

                @Override
                public void onUpstreamFinish() {
                    upstreamDone = true;
                    closeWhenIdle();
                }

                @Override
                public void onUpstreamFailure(Throwable e) {
                    fail(e);
                }
            });
        }

        @Override
        public void preStart() {
            setKeepGoing(true); // the last writes and the close complete after upstream has finished
            files = UringFiles.get(Adapter.toTyped(materializer().system()));
            written = createAsyncCallback(this::onWritten);
            failed = createAsyncCallback(this::fail);
            AsyncCallback<FileHandle> opened = createAsyncCallback(handle -> {
                file = handle;
                if (upstreamDone) {
                    closeWhenIdle();
                } else {
                    pull(in);
                }
            });
            files.open(path, options.toArray(OpenOption[]::new)).whenComplete((handle, e) -> {
                if (e != null) {
                    failed.invoke(e);
                } else {
                    opened.invoke(handle);
                }
            });
        }

        private void write(ByteString data) {
            if (!data.isEmpty()) {
                inFlight++;
                files.write(file, position, data).whenComplete((n, e) -> {
                    if (e != null) {
                        failed.invoke(e);
                    } else {
                        written.invoke(n);
                    }
                });
                position += data.size();
            }
            pullIfRoom();
        }

        private void onWritten(int n) {
            inFlight--;
            bytes += n;
            pullIfRoom();
            closeWhenIdle();
        }

        private void pullIfRoom() {
            if (inFlight < maxInFlight && !upstreamDone && !hasBeenPulled(in) && !isClosed(in)) {
                pull(in);
            }
        }

        private void closeWhenIdle() {
            if (!upstreamDone || inFlight > 0 || file == null || closing) {
                return;
            }
            closing = true;
            AsyncCallback<Object> closed = createAsyncCallback(ignored -> {
                result.complete(IOResult.createSuccessful(bytes));
                completeStage();
            });
            files.close(file).whenComplete((done, e) -> {
                if (e != null) {
                    failed.invoke(e);
                } else {
                    closed.invoke(done);
                }
            });
        }

        private void fail(Throwable e) {
            Throwable cause = UringFileIO.cause(e);
            if (file != null && !closing) {
                closing = true;
                files.close(file);
            }
            result.completeExceptionally(new IOOperationIncompleteException(bytes, cause));
            failStage(cause);
        }

        @Override
        public void postStop() {
            result.completeExceptionally(new IOOperationIncompleteException(bytes,
                    new IllegalStateException("the stream stopped before the file was written")));
        }
    }
}
