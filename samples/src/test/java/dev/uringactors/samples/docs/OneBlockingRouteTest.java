package dev.uringactors.samples.docs;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.http.UringHttp;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.server.Route;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import scala.concurrent.ExecutionContextExecutor;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.withExecutionContext;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guide's one blocking route ({@code DocSnippets.oneBlockingRoute}), run: its call blocks a blocking-routes
 * thread, and meanwhile another route of the same server, on the one ring, answers from the ring's thread. And
 * Pekko HTTP's {@code withExecutionContext}, which does not move a route.
 */
@ExtendWith(RequiresIoUring.class)
class OneBlockingRouteTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString("""
            uring.rings = 1
            blocking-routes {
              type = Dispatcher
              executor = thread-pool-executor
              thread-pool-executor.fixed-pool-size = 4
            }
            """).withFallback(ConfigFactory.load()));

    @AfterEach
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void theBlockingCallRunsOnItsDispatcherWhileTheOtherRoutesAnswerOnTheRing() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> blocked = new CompletableFuture<>();
        DocSnippets.Reports reports = () -> {
            blocked.complete(Thread.currentThread().getName());
            try {
                assertTrue(release.await(DEADLINE.toSeconds(), TimeUnit.SECONDS), "never released");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "report from " + Thread.currentThread().getName();
        };
        Route other = path("other", () -> complete(Thread.currentThread().getName()));
        ServerBinding binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bind(DocSnippets.oneBlockingRoute(testKit.system(), reports, other))
                .toCompletableFuture().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String base = "http://127.0.0.1:" + binding.localAddress().getPort();
            CompletableFuture<HttpResponse<String>> report = client.sendAsync(request(base + "/report"),
                    HttpResponse.BodyHandlers.ofString());
            String blocking = blocked.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertTrue(blocking.contains("blocking-routes"), "the call blocks on " + blocking);

            HttpResponse<String> answered = client.send(request(base + "/other"), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answered.statusCode());
            assertTrue(answered.body().startsWith("uring-ring-0"), "the other route ran on " + answered.body());
            assertFalse(report.isDone(), "the report answered before its call was released");

            release.countDown();
            HttpResponse<String> reported = report.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(200, reported.statusCode());
            assertEquals("report from " + blocking, reported.body());
        } finally {
            release.countDown();
            binding.unbind().toCompletableFuture().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** What the guide says of the directive: it does not move the route off the ring. */
    @Test
    void withExecutionContextLeavesTheRouteOnTheRing() throws Exception {
        ExecutionContextExecutor blocking = testKit.system().dispatchers()
                .lookup(DispatcherSelector.fromConfig("blocking-routes"));
        Route route = path("thread", () -> withExecutionContext(blocking,
                () -> complete(Thread.currentThread().getName())));
        ServerBinding binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0).bind(route)
                .toCompletableFuture().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        try {
            HttpResponse<String> answered = HttpClient.newHttpClient().send(
                    request("http://127.0.0.1:" + binding.localAddress().getPort() + "/thread"),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answered.statusCode());
            assertTrue(answered.body().startsWith("uring-ring-0"), "the route ran on " + answered.body());
        } finally {
            binding.unbind().toCompletableFuture().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static HttpRequest request(String uri) {
        return HttpRequest.newBuilder(URI.create(uri)).timeout(DEADLINE).build();
    }
}
