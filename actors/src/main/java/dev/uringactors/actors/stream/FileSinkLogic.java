package dev.uringactors.actors.stream;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.Done;
import org.apache.pekko.stream.IOOperationIncompleteException;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.SinkShape;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
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
final class FileSinkLogic extends FileStageLogic {
    private final Inlet<ByteString> in;
    private final Path path;
    private final Set<? extends OpenOption> options;
    private final int maxInFlight;
    private AsyncCallback<Integer> written;
    private AsyncCallback<Done> closed;
    private long position;
    private int inFlight;
    private boolean upstreamDone;

    FileSinkLogic(SinkShape<ByteString> shape, CompletableFuture<IOResult> result, Path path,
                  Set<? extends OpenOption> options) {
        super(shape, result);
        this.in = shape.in();
        this.path = path;
        this.options = options;
        this.maxInFlight = options.contains(StandardOpenOption.APPEND) ? 1 : UringFileIO.IN_FLIGHT;
        setHandler(in, new AbstractInHandler() {
            @Override
            public void onPush() {
                write(grab(in));
            }

            @Override
            public void onUpstreamFinish() {
                upstreamDone = true;
                closeWhenWritten();
            }

            @Override
            public void onUpstreamFailure(Throwable e) {
                onFailure(e);
            }
        });
    }

    @Override
    CompletionStage<FileHandle> open(UringFiles files) {
        return files.open(path, options.toArray(OpenOption[]::new));
    }

    @Override
    public void preStart() {
        setKeepGoing(true); // the last writes and the close complete after upstream has finished
        written = createAsyncCallback(this::onWritten);
        closed = createAsyncCallback(done -> {
            result.complete(IOResult.createSuccessful(bytes));
            completeStage();
        });
        super.preStart();
    }

    @Override
    void onOpened() {
        if (upstreamDone) {
            closeWhenWritten();
        } else {
            pull(in);
        }
    }

    private void write(ByteString data) {
        if (!data.isEmpty()) {
            inFlight++;
            files().write(file(), position, data).whenComplete((n, e) -> {
                if (e != null) {
                    failAsync(e);
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
        closeWhenWritten();
    }

    private void pullIfRoom() {
        if (inFlight < maxInFlight && !upstreamDone && !hasBeenPulled(in) && !isClosed(in)) {
            pull(in);
        }
    }

    /** Once upstream has finished and every write is done, closes the file and completes with its answer. */
    private void closeWhenWritten() {
        if (!upstreamDone || inFlight > 0 || file() == null) {
            return; // not open yet (onOpened comes back here), or already closing
        }
        closeFile().whenComplete((done, e) -> {
            if (e != null) {
                failAsync(e);
            } else {
                closed.invoke(done);
            }
        });
    }

    @Override
    public void postStop() {
        super.postStop();
        result.completeExceptionally(new IOOperationIncompleteException(bytes,
                new IllegalStateException("the stream stopped before the file was written")));
    }
}
