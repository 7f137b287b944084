package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A burst of connections to a server with the default settings is spread over the rings: each connection asks
 * {@code /thread} which ring thread serves it.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConnectionSpreadTest {
    private static final int RINGS = 2;
    private static final int BURST = 64;
    private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString("uring.rings = " + RINGS)
            .withFallback(ConfigFactory.load()));

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aBurstOfSixtyFourConnectionsLeavesNoRingMoreThanSixtyPercent() throws Exception {
        ServerBinding binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bind(TestRoutes.routes(CompletableFuture::new))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < BURST; i++) {
                Socket s = new Socket("127.0.0.1", binding.localAddress().getPort());
                s.setSoTimeout(10_000);
                clients.add(s);
            }
            int[] perRing = new int[RINGS];
            for (Socket s : clients) {
                perRing[ringServing(s)]++;
            }
            System.out.println(BURST + " HTTP connections on " + RINGS + " rings: " + Arrays.toString(perRing));
            assertTrue(Arrays.stream(perRing).allMatch(n -> n <= BURST * 6 / 10),
                    "no ring holds more than 60%: " + Arrays.toString(perRing));
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** The index of the ring whose thread ran the route for the connection {@code s}. */
    private static int ringServing(Socket s) throws IOException {
        s.getOutputStream().write("GET /thread HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        String thread = response.substring(response.indexOf("\r\n\r\n") + 4);
        assertTrue(thread.matches("uring-ring-\\d+"), thread);
        return Integer.parseInt(thread.substring("uring-ring-".length()));
    }
}
