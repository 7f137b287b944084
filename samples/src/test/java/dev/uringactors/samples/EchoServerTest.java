package dev.uringactors.samples;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class EchoServerTest {
    RunningServer running;
    InetSocketAddress server;

    @BeforeAll
    void start() throws Exception {
        running = RunningServer.start(EchoServer::create);
        server = running.address;
    }

    @AfterAll
    void stop() {
        running.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(server.getAddress(), server.getPort());
        s.setSoTimeout(20_000);
        return s;
    }

    @Test
    void echoesAMebibyteIntact() throws Exception {
        byte[] payload = new byte[1 << 20];
        new Random(1).nextBytes(payload);
        try (Socket s = connect()) {
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    s.getOutputStream().write(payload);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            byte[] back = s.getInputStream().readNBytes(payload.length);
            writer.get(20, TimeUnit.SECONDS);
            assertArrayEquals(payload, back);
        }
    }

    @Test
    void aThousandConcurrentConnectionsEachGetTheirOwnEcho() throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 1000; i++) {
                Socket s = connect();
                sockets.add(s);
                s.getOutputStream().write(String.format("connection %06d\n", i).getBytes(StandardCharsets.US_ASCII));
            }
            for (int i = 0; i < sockets.size(); i++) {
                byte[] line = sockets.get(i).getInputStream().readNBytes(18);
                assertEquals(String.format("connection %06d\n", i), new String(line, StandardCharsets.US_ASCII));
            }
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void halfClosedClientGetsEverythingBackThenEndOfStream() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write("last words".getBytes(StandardCharsets.US_ASCII));
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            assertEquals("last words", new String(in.readNBytes(10), StandardCharsets.US_ASCII));
            assertEquals(-1, in.read(), "the server closed after replying");
        }
    }

    @Test
    void aClientThatSendsWithoutReadingIsHeldBackNotBuffered() throws Exception {
        long limit = 64L << 20;
        long written = 0;
        byte[] chunk = new byte[64 * 1024];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) i;
        }
        try (SocketChannel ch = SocketChannel.open(server); Selector selector = Selector.open()) {
            ch.configureBlocking(false);
            ch.register(selector, SelectionKey.OP_WRITE);
            // Write until the socket stays unwritable for a second: the server has stopped reading.
            while (selector.select(1000) > 0) {
                selector.selectedKeys().clear();
                written += ch.write(ByteBuffer.wrap(chunk));
                if (written > limit) {
                    fail("the server took " + written + " bytes from a client that reads nothing");
                }
            }
            assertTrue(written > 0);
            // Now read it all back: the server resumes reading as its replies drain.
            ch.keyFor(selector).cancel();
            selector.selectNow(); // completes the deregistration
            ch.configureBlocking(true);
            ByteBuffer in = ByteBuffer.allocate(chunk.length);
            long read = 0;
            while (read < written) {
                in.clear();
                int n = ch.read(in);
                assertTrue(n > 0, "echo ended early at " + read + " of " + written);
                for (int i = 0; i < n; i++) {
                    assertEquals((byte) ((read + i) % chunk.length), in.get(i));
                }
                read += n;
            }
            assertEquals(written, read);
        }
    }

    @Test
    void tenThousandConnectionsLeaveNoFdBehind() throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        for (int i = 0; i < 10_000; i++) {
            try (Socket s = connect()) {
                s.getOutputStream().write(1);
                assertEquals(1, s.getInputStream().read());
            }
        }
        sockets.assertNoneNew("sockets after 10,000 connections");
    }

    @Test
    @Tag("io-uring-only") // a ring's CQ, and its counters
    void anAcceptBurstThroughAnEightEntryCqLosesNoConnection() throws Exception {
        ActorTestKit small = ActorTestKit.create(ConfigFactory.parseString(
                "uring { rings = 1, sq-entries = 4, cq-entries = 8 }").withFallback(ConfigFactory.load()));
        List<Socket> sockets = new ArrayList<>();
        try {
            UringExtension uring = UringExtension.get(small.system());
            TestProbe<TcpProtocol.Event> bound = small.createTestProbe();
            // Pull mode: the connections wait in the kernel backlog, then one ResumeAccepting lets them all in.
            small.spawn(Behaviors.<TcpProtocol.Event>setup(ctx -> {
                UringTcp.get(ctx.getSystem()).manager().tell(new TcpProtocol.Bind(ctx.getSelf(),
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512, true));
                return Behaviors.receiveMessage(e -> {
                    if (e instanceof TcpProtocol.Connected c) {
                        ctx.spawnAnonymous(EchoServer.connection(c.connection()), uring.dispatcher(c.ring()));
                    } else {
                        bound.getRef().tell(e);
                    }
                    return Behaviors.same();
                });
            }), "burst");
            TcpProtocol.Bound b = bound.expectMessageClass(TcpProtocol.Bound.class);
            for (int i = 0; i < 300; i++) {
                Socket s = new Socket(b.localAddress().getAddress(), b.localAddress().getPort());
                s.setSoTimeout(20_000);
                sockets.add(s);
            }
            b.listener().tell(new TcpProtocol.ResumeAccepting(300));
            for (Socket s : sockets) {
                s.getOutputStream().write(7);
            }
            for (Socket s : sockets) {
                assertEquals(7, s.getInputStream().read());
            }
            RingLoopStats s = uring.stats(0).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertTrue(s.ringStats().overflowFlushes() > 0, "the CQ did overflow: " + s);
            assertEquals(0, s.ringStats().droppedCompletions());
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
            small.shutdownTestKit();
        }
    }
}
