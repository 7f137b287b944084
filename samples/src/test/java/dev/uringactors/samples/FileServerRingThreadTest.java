package dev.uringactors.samples;

import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.StatCallsForbidden;
import dev.uringactors.samples.HttpExchange.Response;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.uringactors.samples.HttpExchange.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The file server's requests run on ring threads, which must not block: it looks up no path there, the ring does;
 * what it needs to know of a file it takes from the descriptor the ring opened. Its ring threads are forbidden to
 * stat a file by its path ({@link StatCallsForbidden}), and it still answers every kind of request as before.
 */
@Tag("io-uring-only") // the ring threads under a seccomp filter; the JDK backend has none
@ExtendWith(RequiresIoUring.class)
class FileServerRingThreadTest {
    @TempDir
    Path root;

    @Test
    void ringThreadsThatCannotStatServeEveryKindOfRequest() throws Exception {
        Files.writeString(root.resolve("hello.txt"), "hello, files");
        Files.createDirectories(root.resolve("site"));
        Files.writeString(root.resolve("site/index.html"), "<p>site</p>");
        Files.createDirectories(root.resolve("list"));
        Files.writeString(root.resolve("list/a.txt"), "a");
        try (RunningServer running = RunningServer.start((address, bound) -> FileServer.create(address, bound, root))) {
            String etag = fetch(running.address, get("/hello.txt", "")).header("etag");
            List<String> before = answers(running.address, etag); // the ring threads load what the answers need
            assertEquals(List.of("200 hello, files", "304 ", "206 hello", "200 ", "301 ", "200 <p>site</p>",
                    "404 ", "200 listed"), before);
            forbidStatOnRingThreads(running.system());
            assertEquals(before, answers(running.address, etag));
        }
    }

    /** Each kind of answer, as its status and body (a listing only as "listed"). */
    private static List<String> answers(InetSocketAddress server, String etag) throws IOException {
        List<String> answers = new ArrayList<>();
        for (String request : new String[] {get("/hello.txt", ""), get("/hello.txt", "If-None-Match: " + etag
                + "\r\n"), get("/hello.txt", "Range: bytes=0-4\r\n"), "HEAD /hello.txt HTTP/1.1\r\nHost: t\r\n\r\n",
                get("/site", ""), get("/site/", ""), get("/missing.txt", ""), get("/list/", "")}) {
            Response r = fetch(server, request);
            String body = new String(r.body(), StandardCharsets.UTF_8);
            answers.add(r.status() + " " + (body.contains("a.txt") ? "listed" : body));
        }
        return answers;
    }

    private static Response fetch(InetSocketAddress server, String request) throws IOException {
        try (HttpExchange c = new HttpExchange(server)) {
            return c.exchange(request);
        }
    }

    /** Forbids the ring threads to stat; the listings' pool, which they hand work to, is started before. */
    private static void forbidStatOnRingThreads(ActorSystem<?> system) throws Exception {
        StatCallsForbidden.startThreads(system.dispatchers().lookup(DispatcherSelector.blocking()), system.settings()
                .config().getInt("pekko.actor.default-blocking-io-dispatcher.thread-pool-executor.fixed-pool-size"));
        Rings rings = IoBackends.rings(system);
        for (int i = 0; i < rings.count(); i++) {
            CompletableFuture<Void> installed = new CompletableFuture<>();
            rings.loop(i).execute(() -> {
                try {
                    StatCallsForbidden.onThisThread();
                    installed.complete(null);
                } catch (Throwable e) {
                    installed.completeExceptionally(e);
                }
            });
            installed.get(10, TimeUnit.SECONDS);
        }
    }
}
