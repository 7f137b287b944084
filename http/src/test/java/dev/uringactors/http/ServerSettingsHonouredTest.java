package dev.uringactors.http;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code pekko.http.server} settings that Pekko's own transport honours, honoured on the rings. */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class ServerSettingsHonouredTest {
    /**
     * A register time-out shorter than the test's waits: a connection the bind holds for a free slot must not be
     * closed for not being registered meanwhile.
     */
    private final ActorTestKit testKit = ActorTestKit.create(com.typesafe.config.ConfigFactory.parseString(
            "uring.tcp.register-timeout = 1s").withFallback(com.typesafe.config.ConfigFactory.load()));

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        ServerBinding binding = bind("idle-timeout = 300ms");
        try (Socket s = connect(binding)) {
            request(s);
            long start = System.nanoTime();
            UringHttpTest.assertConnectionEnds(s); // the socket's own read timeout (10 s) would fail this
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waited >= 200 && waited < 5_000, "closed after " + waited + " ms");
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void noMoreThanMaxConnectionsAreServedAtOnce() throws Exception {
        ServerBinding binding = bind("max-connections = 2");
        try (Socket first = connect(binding); Socket second = connect(binding); Socket third = connect(binding)) {
            request(first);
            request(second);
            third.getOutputStream().write(get());
            third.setSoTimeout(1500);
            assertThrows(SocketTimeoutException.class, () -> third.getInputStream().read(),
                    "a third connection waits (in the backlog, or held by the bind) while two are open");
            first.close();
            third.setSoTimeout(10_000);
            assertTrue(UringHttpTest.readHead(third.getInputStream()).startsWith("HTTP/1.1 200 OK"),
                    "served once a slot is free");
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private ServerBinding bind(String serverSettings) throws Exception {
        return UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .adaptSettings(defaults -> org.apache.pekko.http.javadsl.settings.ServerSettings.create(
                        com.typesafe.config.ConfigFactory.parseString("pekko.http.server." + serverSettings)
                                .withFallback(testKit.system().settings().config())))
                .bind(TestRoutes.routes(() -> CompletableFuture.completedFuture("slow")))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Socket connect(ServerBinding binding) throws IOException {
        Socket s = new Socket("127.0.0.1", binding.localAddress().getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    private static byte[] get() {
        return "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    }

    private static void request(Socket s) throws IOException {
        s.getOutputStream().write(get());
        assertTrue(UringHttpTest.readHead(s.getInputStream()).startsWith("HTTP/1.1 200 OK"));
        s.getInputStream().readNBytes(TestRoutes.HELLO.length());
    }
}
