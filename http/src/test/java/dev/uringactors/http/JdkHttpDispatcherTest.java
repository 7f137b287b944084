package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Under the JDK backend, {@code UringHttp}'s connections run on {@code uring.jdk.http-dispatcher}, whose threads
 * have the ring threads' stack (the JDK backend needs no io_uring); a bad block of it fails the server's builder.
 */
class JdkHttpDispatcherTest {
    @Test
    void aConnectionRunsOnTheHttpDispatcher() throws Exception {
        ActorTestKit kit = jdkBackend("");
        try {
            ServerBinding binding = UringHttp.get(kit.system()).newServerAt("127.0.0.1", 0)
                    .bindSync(request -> HttpResponse.create().withEntity(Thread.currentThread().getName()))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            String thread = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + binding.localAddress().getPort() + "/")).timeout(Duration.ofSeconds(10)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(thread.contains("uring.jdk.http-dispatcher"), thread);
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void aBadHttpDispatcherBlockFailsTheBuilderNamingTheKey() {
        ActorTestKit kit = jdkBackend("uring.jdk.http-dispatcher.thread-pool-executor.core-pool-size-min = many");
        try {
            Exception e = assertThrows(Exception.class,
                    () -> UringHttp.get(kit.system()).newServerAt("127.0.0.1", 0));
            StringBuilder causes = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                causes.append(t).append('\n');
            }
            assertTrue(causes.toString().contains("uring.jdk.http-dispatcher")
                    && causes.toString().contains("core-pool-size-min"), causes.toString());
        } finally {
            kit.shutdownTestKit();
        }
    }

    private static ActorTestKit jdkBackend(String config) {
        return ActorTestKit.create(ConfigFactory.parseString(config + "\nuring.backend = jdk")
                .withFallback(ConfigFactory.load()));
    }
}
