package dev.uringactors.actors.internal.tcp;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.Aborted;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Closed;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.ConfirmedClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Connect;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import dev.uringactors.actors.tcp.TcpProtocol.Unbound;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every user command in every phase of a connection a user can reach, as a table: a write, a close and an abort,
 * and the handler stopping, each sent to a connection brought into that phase by what a peer and a handler do.
 * What each does there is seen on both sides: the handler's events and the peer's bytes, end of stream or reset.
 * No socket is left open after any of them.
 */
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class ConnectionPhasesTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    /** More than loopback's buffers hold (send and receive, autotuned, at most about 10 MiB here). */
    private static final int UNSENDABLE = 24 << 20;

    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString(
            "uring { rings = 1, tcp { max-write-queue = 64 MiB, idle-timeout = infinite, register-timeout = 1m } }"))
            .build();

    /** The phases a user can bring a connection into, and how. */
    enum Phase {
        /** Connected, no Register. */
        AWAITING_REGISTRATION,
        /** Registered; a byte from the peer read. */
        OPEN,
        /** Registered to keep open; the peer shut its side down. */
        HALF_OPEN,
        /** A write the peer does not read, then CLOSE. */
        CLOSING_AFTER_WRITES,
        /** CONFIRMED_CLOSE: our side shut down, the peer's awaited. */
        AWAITING_PEER_CLOSE;

        /** A close has begun: no more writes, and CLOSE changes nothing. */
        boolean closing() {
            return this == CLOSING_AFTER_WRITES || this == AWAITING_PEER_CLOSE;
        }
    }

    /** A connection brought into a phase: its actor, the handler that hears it, and the peer's socket. */
    private record Peer(Phase phase, Connected connected, TestProbe<Event> handler, Socket socket) {
        void tell(Object command) {
            connected.connection().<Object>unsafeUpcast().tell(command);
        }

        long drain() throws IOException {
            return ConnectionPhasesTest.drain(socket);
        }
    }

    /**
     * Every byte {@code socket} reads until its stream ends: their count; or, if a reset ends it, -1 minus their
     * count. A read that waits longer than the socket's timeout fails the test.
     */
    private static long drain(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[1 << 16];
        long total = 0;
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                total += n;
            }
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (SocketException reset) {
            return -1 - total;
        }
        return total;
    }

    /** A bind of its own, a connection to it brought into {@code phase}, given to {@code body}; nothing left after. */
    private void inPhase(Phase phase, PeerTest body) throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        TestProbe<Event> handler = testKit.createTestProbe(Event.class);
        UringTcp.get(testKit.system()).manager().tell(new Bind(handler.getRef(), LOOPBACK, 0, false));
        Bound bound = handler.expectMessageClass(Bound.class, DEADLINE);
        try (Socket socket = new Socket(bound.localAddress().getAddress(), bound.localAddress().getPort())) {
            socket.setSoTimeout((int) DEADLINE.toMillis()); // a read that hangs fails the test
            Peer peer = new Peer(phase, handler.expectMessageClass(Connected.class, DEADLINE), handler, socket);
            bringInto(peer);
            TestProbe<Event> listenerEvents = testKit.createTestProbe(Event.class);
            bound.listener().tell(new Unbind(listenerEvents.getRef()));
            listenerEvents.expectMessage(DEADLINE, Unbound.INSTANCE);
            body.run(peer);
        }
        sockets.assertNoneNew("after " + phase);
    }

    @FunctionalInterface
    private interface PeerTest {
        void run(Peer peer) throws Exception;
    }

    /** Brings a fresh connection into its phase, each step shown by what the other side sees. */
    private static void bringInto(Peer peer) throws IOException {
        switch (peer.phase()) {
            case AWAITING_REGISTRATION -> {
            }
            case OPEN -> {
                peer.tell(new Register(peer.handler().getRef()));
                peer.socket().getOutputStream().write('x');
                assertEquals("x", peer.handler().expectMessageClass(Received.class, DEADLINE).data().utf8String());
            }
            case HALF_OPEN -> {
                peer.tell(new Register(peer.handler().getRef(), true));
                peer.socket().shutdownOutput();
                peer.handler().expectMessage(DEADLINE, PeerClosed.INSTANCE);
            }
            case CLOSING_AFTER_WRITES -> {
                peer.tell(new Register(peer.handler().getRef()));
                peer.tell(new Write(ByteString.fromArrayUnsafe(new byte[UNSENDABLE]), null));
                peer.tell(CloseCommand.CLOSE);
            }
            case AWAITING_PEER_CLOSE -> {
                peer.tell(new Register(peer.handler().getRef()));
                peer.tell(CloseCommand.CONFIRMED_CLOSE);
                assertEquals(-1, peer.socket().getInputStream().read(), "our side is shut down");
            }
        }
    }

    /**
     * How a connection in a closing phase ends once left alone: the write queued before the close reaches the
     * peer whole, then the end of stream and Closed; or the peer closes, and ConfirmedClosed.
     */
    private static void endsAsItWasClosing(Peer peer) throws IOException {
        if (peer.phase() == Phase.CLOSING_AFTER_WRITES) {
            assertEquals(UNSENDABLE, peer.drain(), "all of the write queued before the close, then the end");
            peer.handler().expectMessage(DEADLINE, Closed.INSTANCE);
        } else {
            peer.socket().close();
            peer.handler().expectMessage(DEADLINE, ConfirmedClosed.INSTANCE);
        }
    }

    @ParameterizedTest
    @EnumSource(Phase.class)
    void aWriteIsSentAndAcknowledgedUntilACloseBegins(Phase phase) throws Exception {
        inPhase(phase, peer -> {
            Write write = new Write(ByteString.fromString("pong"), new Ack(phase));
            peer.tell(write);
            if (phase.closing()) {
                CommandFailed failed = peer.handler().expectMessageClass(CommandFailed.class, DEADLINE);
                assertEquals(write, failed.command());
                assertTrue(failed.cause().getMessage().contains("closing"), failed.cause().toString());
                endsAsItWasClosing(peer);
            } else {
                peer.handler().expectMessage(DEADLINE, new Ack(phase));
                byte[] pong = peer.socket().getInputStream().readNBytes(4);
                assertEquals("pong", new String(pong, StandardCharsets.US_ASCII));
                peer.tell(CloseCommand.CLOSE);
                peer.handler().expectMessage(DEADLINE, Closed.INSTANCE);
            }
        });
    }

    @ParameterizedTest
    @EnumSource(Phase.class)
    void aCloseEndsTheConnectionOnceUnlessOneHasBegun(Phase phase) throws Exception {
        inPhase(phase, peer -> {
            peer.tell(CloseCommand.CLOSE);
            if (phase.closing()) {
                endsAsItWasClosing(peer);
            } else {
                peer.handler().expectMessage(DEADLINE, Closed.INSTANCE);
                assertEquals(0, peer.drain(), "an end of stream, not a reset");
            }
            peer.tell(CloseCommand.CLOSE);
            peer.handler().expectNoMessage(Duration.ofMillis(200)); // one end event, however many closes
        });
    }

    @ParameterizedTest
    @EnumSource(Phase.class)
    void anAbortResetsTheConnectionInEveryPhase(Phase phase) throws Exception {
        inPhase(phase, peer -> {
            peer.tell(CloseCommand.ABORT);
            peer.handler().expectMessage(DEADLINE, Aborted.INSTANCE);
            if (phase == Phase.AWAITING_PEER_CLOSE) {
                // The peer read our end of stream already: the reset shows when it writes.
                assertThrows(SocketException.class, () -> {
                    for (int i = 0; i < 100; i++) {
                        peer.socket().getOutputStream().write('y');
                        peer.socket().getInputStream().read();
                    }
                }, "a reset within 100 writes");
            } else {
                long read = peer.drain();
                assertTrue(read < 0, "a reset, after " + (-1 - read) + " bytes; not an end after " + read);
                if (phase == Phase.CLOSING_AFTER_WRITES) {
                    assertTrue(-1 - read < UNSENDABLE, "what was queued was dropped: " + (-1 - read));
                }
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = Phase.class, names = "AWAITING_REGISTRATION", mode = EnumSource.Mode.EXCLUDE)
    void aHandlerThatStopsClosesTheConnection(Phase phase) throws Exception {
        inPhase(phase, peer -> {
            peer.handler().stop();
            peer.drain(); // the stream ends (by an end or a reset: what was queued need not reach the peer)
        });
    }

    /**
     * A ring's fault ends the connections on it in every phase with one ErrorClosed that names the ring, their
     * peers see the end, and no socket is left. Outgoing connections, each with a handler of its own.
     */
    @Test
    @Tag("io-uring-only") // the JDK backend has no ring to fail
    void aRingFaultEndsEachPhaseWithOneErrorClosed() throws Exception {
        ActorTestKit kit = TestRings.kit(
                "uring { rings = 1, supervision.max-restarts = 0, tcp { max-write-queue = 64 MiB } }");
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        List<Socket> accepted = new ArrayList<>();
        Map<Phase, TestProbe<Event>> handlers = new EnumMap<>(Phase.class);
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            for (Phase phase : Phase.values()) {
                TestProbe<Event> handler = kit.createTestProbe(Event.class);
                UringTcp.get(kit.system()).manager().tell(new Connect(handler.getRef(),
                        new InetSocketAddress(server.getInetAddress(), server.getLocalPort())));
                Connected connected = handler.expectMessageClass(Connected.class, DEADLINE);
                Socket socket = server.accept();
                accepted.add(socket);
                socket.setSoTimeout((int) DEADLINE.toMillis());
                bringInto(new Peer(phase, connected, handler, socket));
                handlers.put(phase, handler);
            }
            TestRings.fault(kit.system(), 0, "injected");
            for (Map.Entry<Phase, TestProbe<Event>> phase : handlers.entrySet()) {
                String cause = phase.getValue().expectMessageClass(ErrorClosed.class, DEADLINE).cause();
                assertTrue(cause.contains("ring"), phase.getKey() + ": " + cause);
                phase.getValue().expectNoMessage(Duration.ofMillis(100));
            }
            for (Socket socket : accepted) {
                drain(socket); // ends, by an end of stream or a reset
                socket.close();
            }
        } finally {
            kit.shutdownTestKit();
        }
        sockets.assertNoneNew("after the ring's fault");
    }
}
