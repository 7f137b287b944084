package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Routes off the ring: {@code uring.http.route-dispatcher} and {@link UringServerBuilder#withRouteDispatcher} run
 * them on a dispatcher of their own, so that a route that blocks holds up no other connection of its ring. One ring,
 * so that every connection shares it.
 */
@ExtendWith(RequiresIoUring.class)
class RouteDispatcherTest {
    private static final String BLOCKING_ROUTES = "blocking-routes { type = Dispatcher, "
            + "executor = thread-pool-executor, thread-pool-executor.fixed-pool-size = 16 }";
    private ActorTestKit testKit;

    @AfterEach
    void shutDown() {
        testKit.shutdownTestKit();
    }

    private void start(String config) {
        testKit = ActorTestKit.create(ConfigFactory.parseString("uring.rings = 1, " + BLOCKING_ROUTES + ", " + config)
                .withFallback(ConfigFactory.load()));
    }

    @Test
    void whileFourRoutesBlockOnTheirDispatcherEveryOtherConnectionIsServed() throws Exception {
        start("");
        fourBlockingRoutesHoldUpNoOtherConnection();
    }

    /** With HTTP/2 on, HTTP/1.1 clients (the h2c-capable stack) get their routes off the ring as well. */
    @Test
    void withHttp2OnHttp11RoutesRunOnTheirDispatcherToo() throws Exception {
        start("pekko.http.server.enable-http2 = on");
        fourBlockingRoutesHoldUpNoOtherConnection();
    }

    private void fourBlockingRoutesHoldUpNoOtherConnection() throws Exception {
        CountDownLatch blocking = new CountDownLatch(4);
        // The four block until the others have been served (or for longer than a client waits for an answer): the
        // others are served while they block, however slow the machine.
        CountDownLatch release = new CountDownLatch(1);
        ServerBinding binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .withRouteDispatcher("blocking-routes")
                .bindSync(request -> {
                    if (request.getUri().path().equals("/block")) {
                        blocking.countDown();
                        release.await(30, TimeUnit.SECONDS);
                    }
                    return HttpResponse.create().withEntity(Thread.currentThread().getName());
                })
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        int port = binding.localAddress().getPort();
        List<Socket> others = new ArrayList<>();
        List<Socket> blocked = new ArrayList<>();
        try {
            for (int i = 0; i < 16; i++) {
                others.add(connect(port));
            }
            for (int round = 0; round < 3; round++) { // their streams are materialized, the code paths warm
                for (Socket s : others) {
                    assertTrue(exchange(s, "/").contains("blocking-routes"), "routes run on their dispatcher");
                }
            }
            for (int i = 0; i < 4; i++) {
                blocked.add(connect(port));
                send(blocked.get(i), "/block");
            }
            assertTrue(blocking.await(10, TimeUnit.SECONDS), "four routes block side by side");
            // Each answered (within the sockets' 10 s timeout) while the four still block.
            for (Socket s : others) {
                assertTrue(exchange(s, "/").contains("blocking-routes"), "served while the four block");
            }
            release.countDown();
            for (Socket s : blocked) {
                String head = UringHttpTest.readHead(s.getInputStream());
                assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
            }
        } finally {
            release.countDown();
            for (Socket s : others) {
                s.close();
            }
            for (Socket s : blocked) {
                s.close();
            }
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theSettingPutsRoutesOnItsDispatcherAndTheBuilderCanPutThemBackOnTheRing() throws Exception {
        start("uring.http.route-dispatcher = blocking-routes");
        assertTrue(threadOfARoute(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0))
                .contains("blocking-routes"));
        assertTrue(threadOfARoute(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .withRouteDispatcher("")).startsWith("uring-ring-0"));
    }

    @Test
    void aDispatcherThatDoesNotExistFailsTheBindNamingWhereItWasChosen() throws Exception {
        start("uring.http.route-dispatcher = no-such-dispatcher");
        IllegalArgumentException configured = bindFails(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0));
        assertTrue(configured.getMessage().startsWith("uring.http.route-dispatcher = \"no-such-dispatcher\": "),
                configured.getMessage());
        IllegalArgumentException chosen = bindFails(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .withRouteDispatcher("neither"));
        assertTrue(chosen.getMessage().startsWith("withRouteDispatcher = \"neither\": no such dispatcher"),
                chosen.getMessage());
        assertTrue(threadOfARoute(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .withRouteDispatcher("blocking-routes")).contains("blocking-routes"), "the builder's choice wins");
    }

    private IllegalArgumentException bindFails(UringServerBuilder builder) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> builder
                .bind(TestRoutes.routes(CompletableFuture::new)).toCompletableFuture().get(10, TimeUnit.SECONDS));
        return assertInstanceOf(IllegalArgumentException.class, e.getCause());
    }

    /** The thread that ran a route of a server from {@code builder}. */
    private static String threadOfARoute(UringServerBuilder builder) throws Exception {
        ServerBinding binding = builder.bind(TestRoutes.routes(CompletableFuture::new))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Socket s = connect(binding.localAddress().getPort())) {
            s.getOutputStream().write("GET /thread HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            return response.substring(response.indexOf("\r\n\r\n") + 4);
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        return s;
    }

    /** Sends a GET for {@code path} and reads its 200 answer, whose body it returns. */
    private static String exchange(Socket s, String path) throws IOException {
        send(s, path);
        String head = UringHttpTest.readHead(s.getInputStream());
        assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
        int length = Integer.parseInt(head.replaceAll("(?s).*Content-Length: (\\d+).*", "$1"));
        return new String(s.getInputStream().readNBytes(length), StandardCharsets.US_ASCII);
    }

    private static void send(Socket s, String path) throws IOException {
        s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    }
}
