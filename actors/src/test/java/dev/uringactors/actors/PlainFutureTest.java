package dev.uringactors.actors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import scala.concurrent.Promise;
import scala.jdk.javaapi.FutureConverters;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link PlainFuture} made from the kind of stage Pekko's Java API gives (a view of a Scala future) runs its
 * callbacks on the thread that completes it, and its async ones given no executor on the executor it names.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlainFutureTest {
    private final ExecutorService named = Executors.newSingleThreadExecutor(r -> new Thread(r, "named-executor"));

    @AfterAll
    void shutDown() {
        named.shutdownNow();
    }

    @Test
    void aCallbackRunsOnTheThreadThatCompletesTheScalaFuture() throws Exception {
        Promise<String> promise = Promise.apply();
        CompletionStage<String> view = FutureConverters.asJava(promise.future());
        CompletableFuture<String> viewsThread = view.thenApply(v -> Thread.currentThread().getName())
                .toCompletableFuture();
        CompletableFuture<String> plainsThread = PlainFuture.of(view, named)
                .thenApply(v -> Thread.currentThread().getName());
        Thread completer = new Thread(() -> promise.success("done"), "completer");
        completer.start();
        assertEquals("completer", plainsThread.get(10, TimeUnit.SECONDS));
        // Why PlainFuture is there: the view hands even a non-async callback to the default async executor.
        assertNotEquals("completer", viewsThread.get(10, TimeUnit.SECONDS));
    }

    @Test
    void anAsyncCallbackWithoutAnExecutorRunsOnTheOneNamedAndSoDoStagesMadeFromIt() throws Exception {
        PlainFuture<String> plain = new PlainFuture<>(named);
        CompletableFuture<String> first = plain.thenApplyAsync(v -> Thread.currentThread().getName());
        CompletableFuture<String> later = plain.thenApply(v -> v).thenApplyAsync(v -> Thread.currentThread().getName());
        plain.complete("done");
        assertEquals("named-executor", first.get(10, TimeUnit.SECONDS));
        assertEquals("named-executor", later.get(10, TimeUnit.SECONDS));
        assertTrue(later instanceof PlainFuture, "a stage made from a plain future is one: " + later.getClass());
    }

    @Test
    void aFailureComesThroughAsItself() {
        CompletableFuture<String> failed = CompletableFuture.failedFuture(new IllegalStateException("refused"));
        PlainFuture<String> plain = PlainFuture.of(failed, named);
        assertTrue(plain.isCompletedExceptionally());
        Throwable cause = plain.handle((v, e) -> e).join();
        assertTrue(cause instanceof IllegalStateException && cause.getMessage().equals("refused"), "got " + cause);
    }
}
