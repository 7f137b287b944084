package dev.uringactors.actors.internal.tcp;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.FullListener;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.Connect;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpSocketOptions;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A Connect's own settings: its timeout, local address and idle timeout, on both backends. */
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class OutgoingConnectTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** An address of no machine here (TEST-NET-1): binding to it fails, and nothing is ever sent to it. */
    private static final InetSocketAddress NOT_OURS = new InetSocketAddress("192.0.2.1", 0);

    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString(
            "uring { rings = 2, tcp.idle-timeout = infinite }")).build();

    private Event connect(Connect connect, TestProbe<Event> handler) {
        UringTcp.get(testKit.system()).manager().tell(connect);
        return handler.expectMessageClass(Event.class, Duration.ofSeconds(10));
    }

    @Test
    void aConnectThatIsNotAnsweredInTimeFailsAndLeavesNoSocket() throws Exception {
        try (FullListener full = FullListener.open()) {
            OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
            TestProbe<Event> handler = testKit.createTestProbe(Event.class);
            Connect connect = new Connect(handler.getRef(), full.address(), Optional.empty(), TcpSocketOptions.DEFAULT, Optional.of(Duration.ofMillis(300)));
            long start = System.nanoTime();
            CommandFailed failed = assertInstanceOf(CommandFailed.class, connect(connect, handler));
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertEquals(connect, failed.command());
            assertInstanceOf(ConnectException.class, failed.cause());
            assertTrue(failed.cause().getMessage().contains("timed out after PT0.3S"), failed.cause().getMessage());
            assertTrue(tookMs >= 290 && tookMs < 5_000, "answered after " + tookMs + " ms");
            sockets.assertNoneNew("the timed-out connect's socket");
            full.assertNoConnectWaits();
        }
    }

    @Test
    void ourEndIsBoundToTheLocalAddressGiven() throws Exception {
        int localPort;
        try (ServerSocket probe = new ServerSocket(0, 1, LOOPBACK)) {
            localPort = probe.getLocalPort(); // free now; the connect binds it next
        }
        try (ServerSocket server = new ServerSocket(0, 1, LOOPBACK)) {
            TestProbe<Event> handler = testKit.createTestProbe(Event.class);
            InetSocketAddress local = new InetSocketAddress(LOOPBACK, localPort);
            Connected c = assertInstanceOf(Connected.class, connect(new Connect(handler.getRef(),
                    (InetSocketAddress) server.getLocalSocketAddress(), Optional.of(local), TcpSocketOptions.DEFAULT,
                    Optional.empty()), handler));
            assertEquals(local, c.localAddress());
            try (Socket peer = server.accept()) {
                assertEquals(localPort, peer.getPort(), "the peer sees the port we bound");
            }
            c.connection().tell(CloseCommand.ABORT);
        }
    }

    @Test
    void aLocalAddressThatIsNotOursFailsTheConnectAndLeavesNoSocket() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, LOOPBACK)) {
            OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
            TestProbe<Event> handler = testKit.createTestProbe(Event.class);
            Connect connect = new Connect(handler.getRef(), (InetSocketAddress) server.getLocalSocketAddress(),
                    Optional.of(NOT_OURS), TcpSocketOptions.DEFAULT, Optional.empty());
            CommandFailed failed = assertInstanceOf(CommandFailed.class, connect(connect, handler));
            assertEquals(connect, failed.command());
            assertEquals(99, assertInstanceOf(UringException.class, failed.cause()).errno(), "EADDRNOTAVAIL");
            sockets.assertNoneNew("the refused connect's socket");
        }
    }

    @Test
    void theConnectsIdleTimeoutClosesAQuietConnection() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, LOOPBACK)) {
            TestProbe<Event> handler = testKit.createTestProbe(Event.class);
            Connected c = assertInstanceOf(Connected.class, connect(new Connect(handler.getRef(),
                    (InetSocketAddress) server.getLocalSocketAddress(), Optional.empty(),
                    TcpSocketOptions.of(List.of(), Optional.of(Duration.ofMillis(300))), Optional.empty()),
                    handler));
            c.connection().tell(new Register(handler.getRef()));
            try (Socket peer = server.accept()) {
                ErrorClosed closed = handler.expectMessageClass(ErrorClosed.class, Duration.ofSeconds(10));
                assertTrue(closed.cause().contains("idle timeout"), closed.cause());
                assertEquals(-1, peer.getInputStream().read(), "the peer sees the close");
            }
        }
    }
}
