package dev.uringactors.http;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Unbind and terminate with requests in flight: Pekko HTTP's {@code ServerBinding} semantics, on the rings. Each
 * request to {@code /slow} waits for the test to complete the future it handed out.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class TerminationTest {
    private final ActorTestKit testKit = ActorTestKit.create();
    private final LinkedBlockingQueue<CompletableFuture<String>> slow = new LinkedBlockingQueue<>();

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void unbindStopsAcceptingWhileARequestInFlightIsStillAnswered() throws Exception {
        ServerBinding binding = bind();
        int port = binding.localAddress().getPort();
        try (Socket s = connect(port)) {
            send(s, "/slow");
            CompletableFuture<String> inFlight = slow.poll(10, TimeUnit.SECONDS);
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close());
            inFlight.complete("after unbind");
            assertTrue(UringHttpTest.readHead(s.getInputStream()).startsWith("HTTP/1.1 200 OK"));
            assertEquals("after unbind", body(s, "after unbind".length()));
            send(s, "/");
            assertTrue(UringHttpTest.readHead(s.getInputStream()).startsWith("HTTP/1.1 200 OK"),
                    "an open connection is still served after unbind");
        }
    }

    @Test
    void terminateLetsARequestInFlightFinishThenEndsTheConnection() throws Exception {
        ServerBinding binding = bind();
        try (Socket s = connect(binding.localAddress().getPort())) {
            send(s, "/slow");
            CompletableFuture<String> inFlight = slow.poll(10, TimeUnit.SECONDS);
            CompletionStage<?> terminated = binding.terminate(Duration.ofSeconds(10));
            binding.whenTerminationSignalIssued().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertFalse(terminated.toCompletableFuture().isDone(), "a request is in flight");
            inFlight.complete("finished");
            // Whether the answer says Connection: close depends on whether the connection's terminator has seen
            // the signal yet (it is asynchronous, in Pekko HTTP as on its own transport); either way the answer
            // is whole and the connection ends after it.
            String head = UringHttpTest.readHead(s.getInputStream());
            assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
            assertEquals("finished", body(s, "finished".length()));
            terminated.toCompletableFuture().get(10, TimeUnit.SECONDS);
            UringHttpTest.assertConnectionEnds(s);
        }
    }

    /**
     * Pekko HTTP's terminator emits a 503 at the deadline and fails the connection at once; on Pekko's own TCP the
     * failure overtakes the 503, so the client sees a reset alone. The rings must do the same.
     */
    @Test
    void aRequestStillInFlightAtTheHardDeadlineEndsAsOnPekkosTransport() throws Exception {
        for (int round = 0; round < 3; round++) {
            Ending pekko = atHardDeadline(Http.get(testKit.system()).newServerAt("127.0.0.1", 0));
            Ending rings = atHardDeadline(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0));
            assertEquals(pekko, rings, "what the client of a request in flight sees at the hard deadline");
            assertEquals(new Ending("", "reset"), rings);
        }
    }
    /**
     * A binding not added to CoordinatedShutdown: the system's end (as a SIGTERM's) waits for no request, and the
     * connection of one in flight ends unanswered.
     */
    @Test
    void withoutTheBindingInCoordinatedShutdownTheSystemsEndLeavesARequestInFlightUnanswered() throws Exception {
        ActorTestKit own = ActorTestKit.create();
        try {
            ServerBinding binding = bind(UringHttp.get(own.system()).newServerAt("127.0.0.1", 0));
            try (Socket s = connect(binding.localAddress().getPort())) {
                send(s, "/slow");
                CompletableFuture<String> inFlight = slow.poll(10, TimeUnit.SECONDS);
                own.system().terminate();
                own.system().getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
                inFlight.complete("too late");
                assertEquals("", ending(s).received(), "nothing answered");
            }
        } finally {
            own.shutdownTestKit();
        }
    }

    /** What a client read after its request, and how its connection ended: "reset" or "end of stream". */
    private record Ending(String received, String end) {
    }

    private Ending atHardDeadline(ServerBuilder builder) throws Exception {
        ServerBinding binding = bind(builder);
        try (Socket s = connect(binding.localAddress().getPort())) {
            send(s, "/slow");
            CompletableFuture<String> neverInTime = slow.poll(10, TimeUnit.SECONDS);
            binding.terminate(Duration.ofMillis(300)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            Ending ending = ending(s);
            neverInTime.complete("too late");
            return ending;
        }
    }

    /** Reads what {@code s} still receives, to its end. */
    private static Ending ending(Socket s) throws IOException {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        String end;
        try {
            s.getInputStream().transferTo(received);
            end = "end of stream";
        } catch (SocketException e) {
            assertTrue(String.valueOf(e.getMessage()).contains("reset"), e.toString());
            end = "reset";
        }
        return new Ending(received.toString(StandardCharsets.US_ASCII), end);
    }

    private ServerBinding bind() throws Exception {
        return bind(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0));
    }

    private ServerBinding bind(ServerBuilder builder) throws Exception {
        return builder.bind(TestRoutes.routes(() -> {
            CompletableFuture<String> answer = new CompletableFuture<>();
            slow.add(answer);
            return answer;
        })).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        return s;
    }

    private static void send(Socket s, String path) throws IOException {
        s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    private static String body(Socket s, int length) throws IOException {
        return new String(s.getInputStream().readNBytes(length), StandardCharsets.US_ASCII);
    }
}
