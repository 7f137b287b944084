package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.Backend;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ReadControl;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpSocketOptions;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.KernelFacts;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.io.TcpSO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A connection reads at most about {@code uring.tcp.read-ahead} beyond the moment its handler suspends reading:
 * each arming of its receive ends after about that many bytes, and is armed again only while reading is wanted.
 * With no limit, the receive went on taking what the socket held until the suspension reached the kernel. On the
 * JDK backend a connection reads one {@code pekko.io.tcp.direct-buffer-size} at a time (Pekko IO's pull mode),
 * here as much as the read-ahead; in Pekko's other mode a read went on while the socket held a full buffer.
 */
@BothBackends
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadAheadTest {
    private static final int READ_AHEAD = 64 * 1024;
    private static final int RECV_BUFFER = 16 * 1024;
    /** What one read of Pekko IO brings on the JDK backend, as a recv buffer does on a ring. */
    private static final int DIRECT_BUFFER = 64 * 1024;
    private final ActorTestKit testKit = TestRings.kit(
            "uring { rings = 1, tcp { read-ahead = 64 KiB, recv-buffer-size = 16 KiB } }\n"
                    + "pekko.io.tcp.direct-buffer-size = 64 KiB");

    @AfterAll
    void shutdown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aHandlerThatSuspendsGetsAtMostTwoReceivesMoreThenEveryByteOnResuming() throws Exception {
        assumeTheLimitHolds();
        TestProbe<Event> events = testKit.createTestProbe(Event.class);
        UringTcp.get(testKit.system()).manager().tell(new Bind(events.getRef(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        Bound bound = events.expectMessageClass(Bound.class);
        byte[] payload = TcpConnectionHostileTest.random(8 << 20, 13);
        try (Socket client = TcpConnectionHostileTest.connect(bound.localAddress())) {
            Connected c = events.expectMessageClass(Connected.class);
            CompletableFuture<Void> sent = TcpConnectionHostileTest.sendThenShutDown(client, payload);
            // On the connection's ring, as a stream stage that suspends is: the suspension is not held up by a
            // thread hop, and what is read meanwhile is what the limit bounds.
            ActorRef<Event> handler = testKit.spawn(suspendingAtFirstData(c.connection(), events.getRef()),
                    "suspends-at-first-data", UringExtension.get(testKit.system()).dispatcher(0));
            c.connection().tell(new Register(handler));
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            received.write(events.expectMessageClass(Received.class).data().toArray());
            int first = received.size();
            for (Event e : TcpProtocolTest.eventsUntilQuiet(events, Duration.ofSeconds(1))) {
                received.write(((Received) e).data().toArray());
            }
            // The receive under way when the suspension came, and one armed again before it reached the connection,
            // each ending at the buffer that reaches the limit (114 688 bytes measured; 966 656 with no limit).
            int whileSuspended = received.size() - first;
            assertTrue(whileSuspended <= 2 * (READ_AHEAD + receiveSize()) + hopAllowance(),
                    whileSuspended + " bytes came after the suspension");

            c.connection().tell(ReadControl.RESUME_READING);
            while (received.size() < payload.length) {
                received.write(events.expectMessageClass(Received.class, Duration.ofSeconds(10)).data().toArray());
            }
            events.expectMessageClass(PeerClosed.class);
            assertArrayEquals(payload, received.toByteArray(), "every byte, in order");
            sent.get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Sixteen peers send at once to handlers that suspend at their first data: each connection takes at most its
     * read-ahead from the socket after that, so a peer can send only what the socket buffers hold. On the JDK
     * backend, before its connections read in Pekko's pull mode, the most-sending peer got 2.2 to 3.0 MB past the
     * suspension here (against 0.7-0.9 MB since), and 20 peers of the echo sample that never read got 26 to 52 MB
     * each into its memory.
     */
    @Test
    void manyPeersSendingAtOnceCanEachSendOnlyWhatTheBuffersAndTheReadAheadTake() throws Exception {
        assumeTheLimitHolds();
        int peers = 16;
        int receiveBuffer = 256 * 1024; // fixed: else the kernel grows it as far as tcp_rmem lets it (32 MiB here)
        int sendBuffer = 64 * 1024;
        TestProbe<Event> events = testKit.createTestProbe(Event.class);
        UringTcp.get(testKit.system()).manager().tell(new Bind(events.getRef(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0, false,
                TcpSocketOptions.of(List.of(TcpSO.receiveBufferSize(receiveBuffer)), Optional.empty())));
        Bound bound = events.expectMessageClass(Bound.class);
        byte[] payload = TcpConnectionHostileTest.random(32 << 20, 17);
        List<Socket> clients = new ArrayList<>();
        List<AtomicLong> sent = new ArrayList<>();
        CountDownLatch suspended = new CountDownLatch(peers);
        try {
            for (int i = 0; i < peers; i++) {
                Socket client = new Socket();
                client.setSendBufferSize(sendBuffer);
                client.connect(bound.localAddress());
                clients.add(client);
                Connected c = events.expectMessageClass(Connected.class);
                // On the connection's ring, as a handler that must hold its reads is: one on another thread
                // suspends only once that thread runs, and the ring reads at loopback speed meanwhile (one peer
                // of sixteen sent 2.16 MB past its first data so in a clean-clone CI run).
                c.connection().tell(new Register(testKit.spawn(suspendingAtFirstData(c.connection(), suspended),
                        "suspends-at-first-data-" + i, UringExtension.get(testKit.system()).dispatcher(0))));
                sent.add(sendCounting(client, payload));
            }
            assertTrue(suspended.await(10, TimeUnit.SECONDS), "every handler had its first data");
            awaitQuiet(sent);
            // What the two sockets' buffers hold (the kernel counts twice what was set) and what the connection
            // read: 0.7-0.9 MB a peer measured, on both backends; 2.2-3.0 MB for the most-sending peer with no bound
            // (the JDK backend before pull mode). The limit lies between, with room for the kernel's accounting.
            long limit = 6L * receiveBuffer + 2L * sendBuffer + 2L * (READ_AHEAD + RECV_BUFFER);
            System.out.printf("read-ahead, %d peers: bytes sent past the suspension %s (limit %d)%n", peers,
                    sent.stream().map(AtomicLong::get).sorted().toList(), limit);
            for (AtomicLong s : sent) {
                assertTrue(s.get() <= limit, s.get() + " bytes left a peer while the server's reading was "
                        + "suspended; at most " + limit + " fit the socket buffers and the read-ahead");
            }
        } finally {
            for (Socket client : clients) {
                client.close();
            }
        }
    }

    /**
     * Writes {@code payload} to {@code client} 64 KiB at a time on a thread of its own, which ends with the
     * socket; the count is what it wrote.
     */
    private static AtomicLong sendCounting(Socket client, byte[] payload) {
        AtomicLong written = new AtomicLong();
        Thread sender = new Thread(() -> {
            try {
                for (int at = 0; at < payload.length; at += 64 * 1024) {
                    int n = Math.min(64 * 1024, payload.length - at);
                    client.getOutputStream().write(payload, at, n);
                    written.addAndGet(n);
                }
            } catch (IOException e) {
                // the test closed the socket while this write waited on its full buffers
            }
        }, "peer-sending");
        sender.setDaemon(true);
        sender.start();
        return written;
    }

    /** Waits, 20 s at most, until no peer has written anything for a second. */
    private static void awaitQuiet(List<AtomicLong> sent) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long total;
        long before = -1;
        while ((total = sent.stream().mapToLong(AtomicLong::get).sum()) != before && System.nanoTime() < deadline) {
            before = total;
            Thread.sleep(1000); // a window in which no peer may make progress, not a wait for a result
        }
    }

    /** Suspends reading at the first data, and counts down {@code suspended}. */
    private static Behavior<Event> suspendingAtFirstData(ActorRef<ConnectionCommand> connection,
                                                         CountDownLatch suspended) {
        return Behaviors.receiveMessage(e -> {
            if (e instanceof Received) {
                connection.tell(ReadControl.SUSPEND_READING);
                suspended.countDown();
                return Behaviors.ignore();
            }
            return Behaviors.same();
        });
    }

    /** The most one receive brings: a ring's recv buffer, or on the JDK backend one read of Pekko IO. */
    private int receiveSize() {
        return jdkBackend() ? DIRECT_BUFFER : RECV_BUFFER;
    }

    /**
     * What may come while the suspension crosses threads: nothing on a ring, where the handler runs on the
     * connection's thread; on the JDK backend, whose "ring" dispatcher is Pekko's default one, the reads the
     * connection delivers before the handler's thread runs: 195 557 and 320 485 bytes came after the suspension
     * there in two runs of some thirty, over the ring's bound of 163 840 (with no limit, 966 656 came). Four
     * reads are allowed beside the two receives.
     */
    private int hopAllowance() {
        return jdkBackend() ? 4 * DIRECT_BUFFER : 0;
    }

    private boolean jdkBackend() {
        return UringExtension.get(testKit.system()).backend() == Backend.JDK;
    }

    /** Skips, saying why, where a ring's receive has no limit: before Linux 6.17, which reads it. */
    private void assumeTheLimitHolds() {
        assumeTrue(jdkBackend() || KernelFacts.atLeast(6, 17),
                "a multishot receive's limit needs Linux 6.17 (before, the ring reads without one); this is "
                        + KernelFacts.release());
    }

    /** Tells {@code probe} every event, and suspends reading at the first data. */
    private static Behavior<Event> suspendingAtFirstData(ActorRef<ConnectionCommand> connection,
                                                         ActorRef<Event> probe) {
        return Behaviors.receiveMessage(e -> {
            probe.tell(e);
            if (e instanceof Received) {
                connection.tell(ReadControl.SUSPEND_READING);
                return forwarding(probe);
            }
            return Behaviors.same();
        });
    }

    private static Behavior<Event> forwarding(ActorRef<Event> probe) {
        return Behaviors.receiveMessage(e -> {
            probe.tell(e);
            return Behaviors.same();
        });
    }
}
