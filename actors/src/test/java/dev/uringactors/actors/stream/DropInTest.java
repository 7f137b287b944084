package dev.uringactors.actors.stream;

import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a user of Pekko's Tcp and FileIO reaches for first, and where a connection's handler runs. */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DropInTest {
    /** Started eagerly, as pekko.actor.typed.extensions allows. */
    final ActorTestKit testKit = TestRings.kit("uring.rings = 2\npekko.actor.typed.extensions = [\"dev.uringactors.actors.UringExtension$Id\"]");

    @AfterAll
    void stop() {
        testKit.shutdownTestKit();
    }

    @Test
    void theExtensionStartsWithTheSystemWhenListedAsOne() {
        assertTrue(testKit.system().hasExtension(UringExtension.Id.getInstance()), "started with the system");
    }

    @Test
    void statsOfEveryRingInOneAnswer() throws Exception {
        List<RingLoopStats> stats = UringExtension.get(testKit.system()).stats().toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertEquals(List.of(0, 1), stats.stream().map(RingLoopStats::ring).toList());
    }

    /** A connection's ring, and the thread its handler runs on, as the handler sees it. */
    private record Handled(int ring, String thread) { }

    /** Serves one connection with a handler that answers with the name of its thread. */
    private Handled handle(boolean onRingThread) throws Exception {
        Flow<ByteString, ByteString, ?> whereAmI = Flow.of(ByteString.class)
                .map(b -> ByteString.fromString(Thread.currentThread().getName() + "\n"));
        Materializer materializer = Materializer.matFromSystem(testKit.system());
        // A classic system, as a Pekko user would pass to Tcp.get.
        UringTcp tcp = UringTcp.get(Adapter.toClassic(testKit.system()));
        // Checked outside the stream: an assertion failing in Sink.foreach would only fail the stream.
        CompletableFuture<Integer> ring = new CompletableFuture<>();
        UringTcp.ServerBinding binding = tcp.bind("127.0.0.1", 0)
                .to(Sink.foreach(c -> {
                    ring.complete(c.ring());
                    c.handleWith(whereAmI, materializer, onRingThread);
                }))
                .run(testKit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Socket s = new Socket(binding.localAddress().getAddress(), binding.localAddress().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write('?');
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int b; (b = in.read()) != '\n' && b >= 0; ) {
                line.append((char) b);
            }
            return new Handled(ring.get(10, TimeUnit.SECONDS), line.toString());
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aConnectionsHandlerRunsOnItsRingThreadUnlessItOptsOut() throws Exception {
        Handled onRing = handle(true);
        assertTrue(onRing.ring() >= 0 && onRing.ring() < 2, "the connection's ring: " + onRing.ring());
        assertEquals("uring-ring-" + onRing.ring(), onRing.thread(), "on its ring's thread");
        // The materializer's default dispatcher, not a ring's: a reply, so the handler ran.
        String optedOut = handle(false).thread();
        assertTrue(optedOut.contains("default-dispatcher"), "opted out: '" + optedOut + "'");
    }

    @Test
    void aFileIsReadFromAStartPosition(@TempDir Path dir) throws Exception {
        byte[] data = new byte[10_000];
        new Random(3).nextBytes(data);
        Path file = Files.write(dir.resolve("f"), data);
        ByteString tail = UringFileIO.fromPath(file, 1024, 4_000)
                .runFold(ByteString.emptyByteString(), ByteString::concat, testKit.system())
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertArrayEquals(Arrays.copyOfRange(data, 4_000, data.length), tail.toArray());
    }
}
