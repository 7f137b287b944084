package dev.uringactors.actors.stream;

import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Shape;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.GraphStageLogic;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

/**
 * A stage of one file, of shape {@code S}: each materialization makes a {@link FileStageLogic}, which completes
 * the {@link IOResult} the stage materializes.
 */
final class FileStage<S extends Shape>
        extends AbstractGraphStageWithMaterializedValue<S, CompletionStage<IOResult>> {
    private final S shape;
    private final BiFunction<S, CompletableFuture<IOResult>, FileStageLogic> logic;

    FileStage(S shape, BiFunction<S, CompletableFuture<IOResult>, FileStageLogic> logic) {
        this.shape = shape;
        this.logic = logic;
    }

    @Override
    public S shape() {
        return shape;
    }

    @Override
    public Pair<GraphStageLogic, CompletionStage<IOResult>> createLogicAndMaterializedValuePair(Attributes attrs) {
        CompletableFuture<IOResult> result = new CompletableFuture<>();
        return Pair.create(logic.apply(shape, result), result);
    }
}
