package dev.uringactors.http;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Bursts of 300 connections at once, each POSTing 1 MiB, against a server with the default settings: every one is
 * accepted and answered, ten bursts in a row, on either backend. With Pekko HTTP's backlog of 100 the listen queue
 * overflowed and the kernel sent SYN cookies; some of the clients were reset.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class ConnectionBurstTest {
    private static final int CLIENTS = 300;
    private static final int LENGTH = 1 << 20;
    private final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void tenBurstsOfThreeHundredOneMebibytePostsAreAllServed() throws Exception {
        ServerBinding binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bind(TestRoutes.routes(CompletableFuture::new))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            InetSocketAddress server = binding.localAddress();
            for (int run = 1; run <= 10; run++) {
                ListenCounters before = ListenCounters.read();
                long start = System.nanoTime();
                List<PostBurst.Outcome> outcomes = PostBurst.post(server, "/length", CLIENTS, LENGTH, 60_000);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                List<String> failed = outcomes.stream().filter(o -> !o.answered(Integer.toString(LENGTH)))
                        .map(PostBurst.Outcome::toString).collect(Collectors.toList());
                System.out.printf("burst %d: %d of %d served in %d ms; kernel: %s%n", run,
                        CLIENTS - failed.size(), CLIENTS, millis, ListenCounters.read().since(before));
                assertEquals(List.of(), failed.stream().distinct().limit(5).collect(Collectors.toList()),
                        "burst " + run + ": " + failed.size() + " of " + CLIENTS + " not served");
            }
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
