package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pekko HTTP's request-timeout is a timer on the ring: it must fire while a streaming response and a busy actor
 * keep that ring busy.
 */
@ExtendWith(RequiresIoUring.class)
class BusyRingHttpTest {
    private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString(
            "uring.rings = 1, pekko.http.server.request-timeout = 300ms").withFallback(ConfigFactory.load()));

    @AfterEach
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aRequestTimeoutFiresWhileTheRingIsKeptBusy() throws Exception {
        ServerBinding binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bind(TestRoutes.routes(CompletableFuture::new)) // /slow never completes
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        AtomicLong busyTurns = new AtomicLong();
        testKit.spawn(Behaviors.<String>receive((ctx, m) -> {
            busyTurns.incrementAndGet();
            ctx.getSelf().tell(m);
            return Behaviors.same();
        }), "busy", IoBackends.rings(testKit.system()).dispatcher(0)).tell("go");
        AtomicLong downloaded = new AtomicLong();
        try (Socket download = connect(binding); Socket slow = connect(binding)) {
            download.getOutputStream().write(get("/bytes/2000000000"));
            Thread reader = new Thread(() -> {
                byte[] buffer = new byte[1 << 16];
                try (InputStream in = download.getInputStream()) {
                    int n;
                    while ((n = in.read(buffer)) > 0) {
                        downloaded.addAndGet(n);
                    }
                } catch (Exception closedByTheTest) {
                    // the test closes the socket when it is done
                }
            });
            reader.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((downloaded.get() < 1 << 20 || busyTurns.get() < 10_000) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(downloaded.get() >= 1 << 20 && busyTurns.get() >= 10_000, "the ring is busy");
            long start = System.nanoTime();
            slow.getOutputStream().write(get("/slow"));
            String head = UringHttpTest.readHead(slow.getInputStream());
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(head.startsWith("HTTP/1.1 503"), head);
            assertTrue(millis < 3_000, "the 300 ms request timeout answered after " + millis + " ms");
            long before = downloaded.get();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (downloaded.get() == before && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(downloaded.get() > before, "the download goes on");
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static Socket connect(ServerBinding binding) throws Exception {
        Socket s = new Socket("127.0.0.1", binding.localAddress().getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    private static byte[] get(String path) {
        return ("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }
}
