package dev.uringactors.actors.stream;

import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Shape;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.GraphStageLogic;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A stage of one file, of shape {@code S}, that materializes the {@link IOResult} its logic completes. */
abstract class FileStage<S extends Shape>
        extends AbstractGraphStageWithMaterializedValue<S, CompletionStage<IOResult>> {
    private final S shape;

    FileStage(S shape) {
        this.shape = shape;
    }

    @Override
    public S shape() {
        return shape;
    }

    /** The logic of one materialization, which completes {@code result}. */
    abstract FileStageLogic createLogic(CompletableFuture<IOResult> result);

    @Override
    public Pair<GraphStageLogic, CompletionStage<IOResult>> createLogicAndMaterializedValuePair(Attributes attrs) {
        CompletableFuture<IOResult> result = new CompletableFuture<>();
        return Pair.create(createLogic(result), result);
    }
}
