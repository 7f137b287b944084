package dev.uringactors.actors;

import org.apache.pekko.actor.ClassicActorSystemProvider;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A {@link CompletableFuture} that starts no thread: its callbacks run on the thread that completes it (or on the
 * caller's, when it has completed already), and an {@code ...Async} callback given no executor runs on the executor
 * named here, such as the actor system's default dispatcher. The stages this library gives are of this kind.
 *
 * <p>Why: the {@code CompletionStage}s of Pekko's Java API ({@code Http.singleRequest}, {@code AskPattern.ask}, a
 * stream's {@code Sink.head}) are views of Scala futures that run every callback, even {@code thenApply}, on the
 * JDK's default async executor. Where the JVM sees two CPUs or fewer (a small container, {@code taskset}) that
 * executor starts a new thread for each task. {@link #of(CompletionStage, ClassicActorSystemProvider)} turns such a
 * stage into one of these.
 */
public final class PlainFuture<T> extends CompletableFuture<T> {
    private final Executor async;

    /** An incomplete future whose {@code ...Async} callbacks without an executor run on {@code async}. */
    public PlainFuture(Executor async) {
        this.async = async;
    }

    /**
     * A future completed as {@code stage} is, on the thread that completes it: one callback on {@code stage}, run
     * there, and none on the default async executor whatever kind of stage it is.
     */
    public static <T> PlainFuture<T> of(CompletionStage<T> stage, Executor async) {
        PlainFuture<T> plain = new PlainFuture<>(async);
        stage.whenCompleteAsync((value, failure) -> {
            if (failure != null) {
                plain.completeExceptionally(failure);
            } else {
                plain.complete(value);
            }
        }, Runnable::run);
        return plain;
    }

    /** {@link #of(CompletionStage, Executor)}, with the system's default dispatcher for async callbacks. */
    public static <T> PlainFuture<T> of(CompletionStage<T> stage, ClassicActorSystemProvider system) {
        return of(stage, system.classicSystem().dispatcher());
    }

    /** The executor of {@code ...Async} callbacks given none. */
    @Override
    public Executor defaultExecutor() {
        return async;
    }

    /** Stages made from this one are of the same kind, with the same executor. */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new PlainFuture<>(async);
    }
}
