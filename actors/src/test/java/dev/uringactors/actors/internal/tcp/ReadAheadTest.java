package dev.uringactors.actors.internal.tcp;

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
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.Probe;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A connection reads at most about {@code uring.tcp.read-ahead} beyond the moment its handler suspends reading:
 * each arming of its receive ends after about that many bytes, and is armed again only while reading is wanted.
 * With no limit, the receive went on taking what the socket held until the suspension reached the kernel.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadAheadTest {
    private static final int READ_AHEAD = 64 * 1024;
    private static final int RECV_BUFFER = 16 * 1024;
    private final ActorTestKit testKit = TestRings.kit(
            "uring { rings = 1, tcp { read-ahead = 64 KiB, recv-buffer-size = 16 KiB } }");

    @AfterAll
    void shutdown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aHandlerThatSuspendsGetsAtMostTwoReceivesMoreThenEveryByteOnResuming() throws Exception {
        assumeTrue(kernelTakesTheLimit(), "a multishot receive's limit needs Linux 6.17 (before, the ring reads "
                + "without one); this is " + Probe.kernelRelease());
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
            assertTrue(whileSuspended <= 2 * (READ_AHEAD + RECV_BUFFER),
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

    /** Linux 6.17 reads a multishot receive's limit. */
    private static boolean kernelTakesTheLimit() {
        String[] release = Probe.kernelRelease().split("[.-]");
        int major = Integer.parseInt(release[0]);
        return major > 6 || major == 6 && Integer.parseInt(release[1]) >= 17;
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
