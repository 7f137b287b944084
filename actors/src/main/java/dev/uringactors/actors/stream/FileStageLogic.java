package dev.uringactors.actors.stream;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.stream.IOOperationIncompleteException;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Shape;
import org.apache.pekko.stream.StreamDetachedException;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStageLogic;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What both file stages do with their file, as Pekko's own file stages do: open it in {@code preStart}, close it in
 * {@code postStop}. An open that completes after the stage has stopped closes its file then, since no stage will.
 */
abstract class FileStageLogic extends GraphStageLogic {
    /** The stage's materialized value. */
    final CompletableFuture<IOResult> result;
    /** The bytes emitted or written so far: the result's count. */
    long bytes;
    private UringFiles files;
    private AsyncCallback<Throwable> failed;
    /** The open file, until it is handed to a close. */
    private FileHandle file;

    FileStageLogic(Shape shape, CompletableFuture<IOResult> result) {
        super(shape);
        this.result = result;
    }

    /** Opens the stage's file. */
    abstract CompletionStage<FileHandle> open(UringFiles files);

    /** The file is open: {@link #file()} has it. */
    abstract void onOpened();

    @Override
    public void preStart() {
        files = UringFiles.get(Adapter.toTyped(materializer().system()));
        AsyncCallback<FileHandle> opened = createAsyncCallback(handle -> {
            file = handle;
            onOpened();
        });
        failed = createAsyncCallback(e -> onFailure(UringFileIO.cause(e)));
        open(files).whenComplete((handle, e) -> {
            if (e != null) {
                failed.invoke(e);
            } else {
                opened.invokeWithFeedbackCompletionStage(handle).whenComplete((done, notTaken) -> {
                    if (notTaken instanceof StreamDetachedException) {
                        files.close(handle); // the stage stopped before it could take the file
                    }
                });
            }
        });
    }

    /** The open, a request on the file, or upstream failed: so do the stage and its result, as FileIO's. */
    final void onFailure(Throwable cause) {
        result.completeExceptionally(new IOOperationIncompleteException(bytes, cause));
        failStage(cause);
    }

    /** Hands a failure from any thread (a request's answer) to {@link #onFailure}, on the stage's own. */
    final void failAsync(Throwable e) {
        failed.invoke(e);
    }

    final UringFiles files() {
        return files;
    }

    /** The open file, or null before the open has completed and once it is closing. */
    final FileHandle file() {
        return file;
    }

    /** Closes the file now, for a stage that waits for the close; {@link #postStop} then leaves it alone. */
    final CompletionStage<Done> closeFile() {
        FileHandle closing = file;
        file = null;
        return files.close(closing);
    }

    @Override
    public void postStop() {
        if (file != null) {
            closeFile(); // requests still in flight hold their own reference to the file
        }
    }
}
