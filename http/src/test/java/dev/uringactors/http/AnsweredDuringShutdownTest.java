package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A slow request answered while CoordinatedShutdown runs (as after a SIGTERM): its response must arrive whole, over
 * HTTP/1.1 and h2c, on the rings as on Pekko's own transport. The rings close in the phase before the system
 * terminates, right after the binding's terminate has seen the response leave its stage, while the response's
 * bytes may still be tasks queued on the connection's ring.
 */
@ExtendWith(RequiresIoUring.class)
class AnsweredDuringShutdownTest {
    private static final int ROUNDS = 50;
    private static final String ANSWER = "answered during shutdown";

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"HTTP/1.1, rings", "HTTP/1.1, pekko", "h2c, rings", "h2c, pekko"})
    void everyResponseOwedIsWrittenBeforeItsConnectionCloses(String protocol, String transport) throws Exception {
        List<String> lost = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            String outcome = oneShutdown(protocol.equals("h2c"), transport.equals("pekko"));
            if (!outcome.equals(ANSWER)) {
                lost.add("round " + round + ": " + outcome);
            }
        }
        assertEquals(List.of(), lost, protocol + " on " + transport + ": responses lost in " + ROUNDS + " shutdowns");
    }

    /**
     * One system, one request in flight, the shutdown; what the client got, or how it failed. The system waits, in
     * the phase where the rings close, for the client to have its answer (or to give up): on Pekko's own TCP too
     * a connection's actor stopped by the system's end drops what it was still to write.
     */
    private static String oneShutdown(boolean h2c, boolean pekkosOwn) throws Exception {
        ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString("pekko.http.server.enable-http2 = on")
                .withFallback(ConfigFactory.load()));
        ActorSystem<Void> system = kit.system();
        try {
            UringExtension.get(system); // the rings run beside either transport, as in the sample
            CompletableFuture<String> answer = new CompletableFuture<>();
            CompletableFuture<Void> requested = new CompletableFuture<>();
            CompletableFuture<String> received = new CompletableFuture<>();
            ServerBuilder server = pekkosOwn ? Http.get(system).newServerAt("127.0.0.1", 0)
                    : UringHttp.get(system).newServerAt("127.0.0.1", 0);
            ServerBinding binding = server.bind(TestRoutes.routes(() -> {
                requested.complete(null);
                return answer;
            })).toCompletableFuture().get(10, TimeUnit.SECONDS);
            binding.addToCoordinatedShutdown(Duration.ofSeconds(5), system);
            CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
            // A slow request: answered a while after the terminator's signal, which has reached the connection by
            // then (an answer that comes before it is Pekko HTTP's other case: the connection fails after it).
            binding.whenTerminationSignalIssued().thenRunAsync(() -> answer.complete(ANSWER),
                    CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
            shutdown.addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "await-the-client",
                    () -> received.handle((text, failure) -> Done.getInstance())
                            .completeOnTimeout(Done.getInstance(), 3, TimeUnit.SECONDS));
            int port = binding.localAddress().getPort();
            String outcome = h2c ? overH2c(port, requested, system) : overHttp11(port, requested, system);
            received.complete(outcome);
            return outcome;
        } finally {
            kit.shutdownTestKit();
        }
    }

    private static String overHttp11(int port, CompletableFuture<Void> requested, ActorSystem<Void> system)
            throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            requested.get(10, TimeUnit.SECONDS);
            system.terminate();
            try {
                String head = UringHttpTest.readHead(s.getInputStream());
                assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
                return new String(s.getInputStream().readNBytes(ANSWER.length()), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                return e.toString();
            }
        }
    }

    private static String overH2c(int port, CompletableFuture<Void> requested, ActorSystem<Void> system)
            throws Exception {
        try (H2Client client = H2Client.connect(H2Client.Mode.PRIOR_KNOWLEDGE, port, null)) {
            CompletableFuture<H2Client.Response> response = client.get("/slow");
            requested.get(10, TimeUnit.SECONDS);
            system.terminate();
            try {
                H2Client.Response whole = response.get(10, TimeUnit.SECONDS);
                assertEquals(200, whole.status());
                return whole.text();
            } catch (ExecutionException e) {
                return e.getCause().toString();
            }
        }
    }
}
