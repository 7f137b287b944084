package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.Connect;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import dev.uringactors.actors.tcp.TcpProtocol.Unbound;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static dev.uringactors.actors.TestRings.fault;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a ring fault does to the listeners and connections on that ring, and what a ring that gave up leaves. */
@ExtendWith(RequiresIoUring.class)
class RingFaultTcpTest {
    private ActorTestKit kit;

    @AfterEach
    void shutDown() {
        kit.shutdownTestKit();
    }

    private void start(String settings) {
        kit = TestRings.kit("uring { rings = 1, " + settings + " }");
    }

    @Test
    void aFaultEndsTheRingsConnectionsAndTheNewRingAcceptsAndServes() throws Exception {
        start("supervision { max-restarts = 3, within = 1m }");
        OpenFds.Snapshot socketsBefore = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        TestProbe<Event> handler = kit.createTestProbe(Event.class);
        Bound bound = bind(handler);
        try (Socket before = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class, Duration.ofSeconds(10));
            c.connection().tell(new Register(handler.getRef()));
            fault(kit.system(), 0, "injected");
            ErrorClosed closed = handler.expectMessageClass(ErrorClosed.class, Duration.ofSeconds(10));
            assertTrue(closed.cause().contains("ring"), closed.cause());
            assertPeerSeesTheEnd(before);
        }
        try (Socket after = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class, Duration.ofSeconds(10));
            c.connection().tell(new Register(handler.getRef()));
            after.getOutputStream().write("served".getBytes(StandardCharsets.US_ASCII));
            Received r = handler.expectMessageClass(Received.class, Duration.ofSeconds(10));
            c.connection().tell(new Write(r.data(), null));
            assertEquals("served", new String(after.getInputStream().readNBytes(6), StandardCharsets.US_ASCII));
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.fishForMessage(Duration.ofSeconds(10), e -> e == Unbound.INSTANCE ? FishingOutcomes.complete()
                : FishingOutcomes.continueAndIgnore());
        socketsBefore.assertNoneNew("sockets left open");
    }

    @ParameterizedTest(name = "listener = {0}")
    @ValueSource(strings = {"shared", "reuse-port"})
    void aRingThatGaveUpClosesItsSocketsAndStopsTurning(String listener) throws Exception {
        start("supervision { max-restarts = 0, within = 1m }, tcp.listener = " + listener
                + ", tcp.register-timeout = 1m");
        OpenFds.Snapshot socketsBefore = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        TestProbe<Event> handler = kit.createTestProbe(Event.class);
        Bound bound = bind(handler);
        try (Socket client = connect(bound)) {
            handler.expectMessageClass(Connected.class, Duration.ofSeconds(10)).connection()
                    .tell(new Register(handler.getRef()));
            fault(kit.system(), 0, "injected");
            // Its connection is closed with close(2): the peer sees the end, not silence.
            assertPeerSeesTheEnd(client);
        }
        // No ring accepts on the listening socket any more: it is closed, and the bind is over.
        handler.fishForMessage(Duration.ofSeconds(10), e -> e == Unbound.INSTANCE ? FishingOutcomes.complete()
                : FishingOutcomes.continueAndIgnore());
        assertThrows(ConnectException.class, () -> connect(bound).close());
        socketsBefore.assertNoneNew("sockets left open");
        long turns = TestRings.stats(kit.system(), 0).turns();
        Thread.sleep(500); // the window measured
        long later = TestRings.stats(kit.system(), 0).turns();
        assertTrue(later - turns <= 5, "the loop parks instead of turning: " + (later - turns) + " turns");
    }

    @Test
    void anOutgoingConnectionWithNothingInFlightIsClosedWhenItsRingGivesUp() throws Exception {
        start("supervision { max-restarts = 0, within = 1m }, tcp.register-timeout = 1m");
        TestProbe<Event> handler = kit.createTestProbe(Event.class);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            UringTcp.get(kit.system()).manager().tell(new Connect(handler.getRef(),
                    new InetSocketAddress(server.getInetAddress(), server.getLocalPort())));
            try (Socket peer = server.accept()) {
                peer.setSoTimeout(10_000);
                // Never registered: no request of it is in flight, so only its ring subscription can tell it.
                handler.expectMessageClass(Connected.class, Duration.ofSeconds(10));
                fault(kit.system(), 0, "injected");
                assertPeerSeesTheEnd(peer);
                ErrorClosed closed = handler.expectMessageClass(ErrorClosed.class, Duration.ofSeconds(10));
                assertTrue(closed.cause().contains("stays closed"), closed.cause());
            }
        }
    }

    private Bound bind(TestProbe<Event> handler) {
        UringTcp.get(kit.system()).manager().tell(new Bind(handler.getRef(), TcpProtocolTest.LOOPBACK));
        return handler.expectMessageClass(Bound.class);
    }

    private static Socket connect(Bound bound) throws IOException {
        Socket s = new Socket(bound.localAddress().getAddress(), bound.localAddress().getPort());
        s.setSoTimeout(10_000);
        return s;
    }
    private static void assertPeerSeesTheEnd(Socket s) throws IOException {
        try {
            assertEquals(-1, s.getInputStream().read());
        } catch (SocketException reset) {
            assertTrue(String.valueOf(reset.getMessage()).contains("reset"), reset.toString());
        }
    }
}
