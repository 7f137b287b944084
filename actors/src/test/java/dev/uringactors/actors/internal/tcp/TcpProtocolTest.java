package dev.uringactors.actors.internal.tcp;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.tcp.ListenerStats;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.ConfirmedClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Connect;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.ResumeAccepting;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import dev.uringactors.actors.tcp.TcpProtocol.Unbound;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
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

import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class TcpProtocolTest {
    static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString(
            "uring { rings = 2, tcp { max-write-queue = 64 KiB, idle-timeout = infinite, register-timeout = 1s } }\n"
            // Shorter than ours: under the JDK backend only uring.tcp.register-timeout may govern a connection.
            + "pekko.io.tcp.register-timeout = 300ms"))
            .build();

    private TestProbe<Event> probe() {
        return testKit.createTestProbe(Event.class);
    }

    private Bound bind(TestProbe<Event> handler, boolean pullMode) {
        UringTcp.get(testKit.system()).manager().tell(new Bind(handler.getRef(), LOOPBACK, 0, pullMode));
        return handler.expectMessageClass(Bound.class);
    }

    private static Socket connect(Bound bound) throws Exception {
        return new Socket(bound.localAddress().getAddress(), bound.localAddress().getPort());
    }

    @Test
    @Tag("io-uring-only") // Pekko IO accepts a connection reset in the backlog like any other
    void connectionsResetInTheBacklogSpendNoPullModeCredit() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, true); // pull mode, and no credit yet: connections wait in the backlog
        for (int i = 0; i < 3; i++) {
            Socket reset = connect(bound);
            reset.getOutputStream().write("partial".getBytes(StandardCharsets.US_ASCII));
            reset.setSoLinger(true, 0);
            reset.close(); // a reset while it waits to be accepted
        }
        try (Socket good = connect(bound)) {
            bound.listener().tell(new ResumeAccepting(1));
            Connected c = handler.expectMessageClass(Connected.class, Duration.ofSeconds(10));
            assertEquals(good.getLocalPort(), c.remoteAddress().getPort(), "the credit went to the live one");
            c.connection().tell(CloseCommand.ABORT);
        }
        TestProbe<ListenerStats> stats = testKit.createTestProbe();
        bound.listener().tell(new TcpProtocol.GetListenerStats(stats.getRef()));
        ListenerStats s = stats.receiveMessage();
        assertEquals(1, s.accepted(), s.toString());
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.fishForMessage(Duration.ofSeconds(10), e -> e == Unbound.INSTANCE
                ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore());
    }

    @Test
    void receivedDataAndAcknowledgedWrites() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        try (Socket client = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class);
            assertEquals(client.getLocalPort(), c.remoteAddress().getPort());
            assertTrue(c.ring() >= 0 && c.ring() < 2);
            c.connection().tell(new Register(handler.getRef()));
            client.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            assertEquals("ping", handler.expectMessageClass(Received.class).data().utf8String());
            c.connection().tell(new Write(ByteString.fromString("pong"), new Ack("w1")));
            assertEquals(new Ack("w1"), handler.expectMessageClass(Ack.class));
            assertEquals("pong", new String(client.getInputStream().readNBytes(4), StandardCharsets.US_ASCII));
            client.shutdownOutput();
            assertEquals(PeerClosed.INSTANCE, handler.expectMessageClass(PeerClosed.class));
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void peerResetIsAnErrorClosedThatSaysSo() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        Socket client = connect(bound);
        Connected c = handler.expectMessageClass(Connected.class);
        c.connection().tell(new Register(handler.getRef()));
        client.setSoLinger(true, 0);
        client.close(); // RST
        ErrorClosed closed = handler.expectMessageClass(ErrorClosed.class);
        assertTrue(closed.cause().contains("ECONNRESET"), closed.cause());
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void connectToAClosedPortFailsWithEconnrefused() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        TestProbe<Event> handler = probe();
        Connect connect = new Connect(handler.getRef(), new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        UringTcp.get(testKit.system()).manager().tell(connect);
        CommandFailed failed = handler.expectMessageClass(CommandFailed.class);
        assertEquals(connect, failed.command());
        assertEquals(Errno.ECONNREFUSED, assertInstanceOf(UringException.class, failed.cause()).errno());
    }

    @Test
    void aConnectWhoseSetupFailsIsAnsweredWithCommandFailed() {
        TestProbe<Event> handler = probe();
        // The socket is made, then encoding the address for CONNECT fails: a failure in the connection's setup.
        Connect connect = new Connect(handler.getRef(), InetSocketAddress.createUnresolved("peer.invalid", 80));
        UringTcp.get(testKit.system()).manager().tell(connect);
        CommandFailed failed = handler.expectMessageClass(CommandFailed.class);
        assertEquals(connect, failed.command());
        assertInstanceOf(IllegalArgumentException.class, failed.cause());
    }

    @Test
    void aConnectToAPeerThatResetsAtOnceIsAnswered() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(10_000);
            for (int i = 0; i < 20; i++) { // the reset lands before, during or after the connection's setup
                TestProbe<Event> handler = probe();
                Connect connect = new Connect(handler.getRef(),
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
                UringTcp.get(testKit.system()).manager().tell(connect);
                try (Socket peer = server.accept()) {
                    peer.setSoLinger(true, 0); // close sends RST
                }
                Event answer = handler.expectMessageClass(Event.class, Duration.ofSeconds(10));
                if (answer instanceof Connected c) { // set up before the reset: it ends as a reset connection
                    c.connection().tell(new Register(handler.getRef()));
                    handler.expectMessageClass(TcpProtocol.ConnectionClosed.class, Duration.ofSeconds(10));
                } else {
                    assertEquals(connect, assertInstanceOf(CommandFailed.class, answer).command());
                }
            }
        }
    }

    @Test
    void outgoingConnectionWritesThenConfirmedCloseWaitsForThePeer() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            TestProbe<Event> handler = probe();
            UringTcp.get(testKit.system()).manager().tell(new Connect(handler.getRef(),
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort())));
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            try (Socket peer = server.accept()) {
                c.connection().tell(Write.of(ByteString.fromString("hello")));
                c.connection().tell(CloseCommand.CONFIRMED_CLOSE);
                InputStream in = peer.getInputStream();
                assertEquals("hello", new String(in.readNBytes(5), StandardCharsets.US_ASCII));
                assertEquals(-1, in.read(), "our side was shut down after the write");
                handler.expectNoMessage(Duration.ofMillis(100)); // still waiting for the peer's side
                peer.getOutputStream().write('x');
                peer.shutdownOutput();
                assertEquals("x", handler.expectMessageClass(Received.class).data().utf8String());
                handler.expectMessage(ConfirmedClosed.INSTANCE);
            }
        }
    }

    @Test
    void halfCloseKeepsWritingAfterThePeerShutsDownItsSide() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        try (Socket client = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef(), true));
            client.shutdownOutput();
            handler.expectMessage(PeerClosed.INSTANCE);
            c.connection().tell(new Write(ByteString.fromString("after"), new Ack(1)));
            handler.expectMessage(new Ack(1));
            c.connection().tell(CloseCommand.CLOSE);
            handler.expectMessage(TcpProtocol.Closed.INSTANCE);
            InputStream in = client.getInputStream();
            assertEquals("after", new String(in.readNBytes(5), StandardCharsets.US_ASCII));
            assertEquals(-1, in.read());
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    @SuppressWarnings("try") // the client socket only needs to be open
    void aWriteBeyondTheQueueLimitBehindOthersFailsInsteadOfBuffering() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        try (Socket client = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            // The first goes, whatever its size: the queue is empty. It cannot finish while the client reads
            // nothing (more than the socket buffers hold). The second would wait behind it: refused.
            c.connection().tell(Write.of(ByteString.fromArray(new byte[32 << 20])));
            Write tooBig = Write.of(ByteString.fromArray(new byte[100 * 1024]));
            c.connection().tell(tooBig);
            CommandFailed failed = handler.expectMessageClass(CommandFailed.class);
            assertEquals(tooBig, failed.command());
            assertTrue(failed.cause().getMessage().contains("uring.tcp.max-write-queue"), failed.cause().getMessage());
            c.connection().tell(CloseCommand.ABORT);
            handler.expectMessage(TcpProtocol.Aborted.INSTANCE);
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void unbindStopsAcceptingAndClosesTheListeningSockets() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
        assertThrows(ConnectException.class, () -> connect(bound).close());
    }

    @Test
    void aConnectionOutlivesTheUnbindAndEveryUnbindIsAnswered() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        try (Socket client = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            TestProbe<Event> again = probe();
            bound.listener().tell(new Unbind(handler.getRef()));
            bound.listener().tell(new Unbind(again.getRef())); // while the first is under way
            handler.expectMessage(Unbound.INSTANCE);
            again.expectMessage(Unbound.INSTANCE);
            assertThrows(ConnectException.class, () -> connect(bound).close());
            TestProbe<Event> late = probe();
            bound.listener().tell(new Unbind(late.getRef())); // once it is done
            late.expectMessage(Unbound.INSTANCE);

            client.getOutputStream().write("still".getBytes(StandardCharsets.US_ASCII));
            assertEquals("still", handler.expectMessageClass(Received.class).data().utf8String());
            c.connection().tell(new Write(ByteString.fromString("here"), new Ack("w")));
            assertEquals(new Ack("w"), handler.expectMessageClass(Ack.class));
            assertEquals("here", new String(client.getInputStream().readNBytes(4), StandardCharsets.US_ASCII));
            c.connection().tell(CloseCommand.CLOSE);
            handler.expectMessageClass(TcpProtocol.ConnectionClosed.class);
        }
    }

    @Test
    @SuppressWarnings("try") // the client sockets only need to be open
    void pullModeAcceptsOnlyWhatWasAskedFor() throws Exception {
        ActorTestKit oneRing = TestRings.kit("uring.rings = 1");
        try {
            TestProbe<Event> handler = oneRing.createTestProbe(Event.class);
            UringTcp.get(oneRing.system()).manager().tell(new Bind(handler.getRef(), LOOPBACK, 0, true));
            Bound bound = handler.expectMessageClass(Bound.class);
            try (Socket a = connect(bound); Socket b = connect(bound)) {
                handler.expectNoMessage(Duration.ofMillis(200)); // both wait in the kernel backlog
                bound.listener().tell(new ResumeAccepting(1));
                Connected first = handler.expectMessageClass(Connected.class);
                handler.expectNoMessage(Duration.ofMillis(200));
                bound.listener().tell(new ResumeAccepting(1));
                Connected second = handler.expectMessageClass(Connected.class);
                assertTrue(first.remoteAddress().getPort() != second.remoteAddress().getPort());
                first.connection().tell(CloseCommand.ABORT);
                second.connection().tell(CloseCommand.ABORT);
                handler.expectMessage(TcpProtocol.Aborted.INSTANCE);
                handler.expectMessage(TcpProtocol.Aborted.INSTANCE);
            }
            bound.listener().tell(new Unbind(handler.getRef()));
            handler.expectMessage(Unbound.INSTANCE);
        } finally {
            oneRing.shutdownTestKit();
        }
    }

    @Test
    void manySmallWritesSentTogetherArriveInOrderAndAreEachAcknowledgedInOrder() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        try (Socket client = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            java.util.Random random = new java.util.Random(7);
            java.io.ByteArrayOutputStream sent = new java.io.ByteArrayOutputStream();
            int writes = 1000; // 0 to 100 bytes each, some empty, every third without an ack: within 64 KiB queued
            for (int i = 0; i < writes; i++) {
                byte[] data = new byte[random.nextInt(101)];
                random.nextBytes(data);
                sent.write(data);
                c.connection().tell(new Write(ByteString.fromArray(data), i % 3 == 0 ? null : new Ack(i)));
            }
            byte[] back = client.getInputStream().readNBytes(sent.size());
            org.junit.jupiter.api.Assertions.assertArrayEquals(sent.toByteArray(), back);
            for (int i = 0; i < writes; i++) {
                if (i % 3 != 0) {
                    assertEquals(new Ack(i), handler.expectMessageClass(Ack.class));
                }
            }
            c.connection().tell(CloseCommand.CLOSE);
            handler.expectMessage(TcpProtocol.Closed.INSTANCE);
            assertEquals(-1, client.getInputStream().read(), "nothing more than what was written");
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void zeroCopyWritesArriveIntactAndAreAcknowledged() throws Exception {
        ActorTestKit zc = TestRings.kit("uring { rings = 1, tcp.zero-copy-threshold = 16 KiB }");
        try {
            TestProbe<Event> handler = zc.createTestProbe(Event.class);
            UringTcp.get(zc.system()).manager().tell(new Bind(handler.getRef(), LOOPBACK));
            Bound bound = handler.expectMessageClass(Bound.class);
            try (Socket client = connect(bound)) {
                Connected c = handler.expectMessageClass(Connected.class);
                c.connection().tell(new Register(handler.getRef()));
                byte[] data = new byte[512 * 1024];
                new java.util.Random(5).nextBytes(data);
                for (int i = 0; i < 8; i++) { // 64 KiB writes: zero-copy; a 1 KiB one: plain
                    c.connection().tell(new Write(ByteString.fromArray(data, i << 16, 1 << 16), new Ack(i)));
                }
                c.connection().tell(new Write(ByteString.fromArray(new byte[1024]), new Ack("small")));
                byte[] back = client.getInputStream().readNBytes(data.length);
                org.junit.jupiter.api.Assertions.assertArrayEquals(data, back);
                for (int i = 0; i < 8; i++) {
                    assertEquals(new Ack(i), handler.expectMessageClass(Ack.class));
                }
                assertEquals(new Ack("small"), handler.expectMessageClass(Ack.class));
                assertEquals(1024, client.getInputStream().readNBytes(1024).length);
                c.connection().tell(CloseCommand.CLOSE);
                handler.expectMessage(TcpProtocol.Closed.INSTANCE);
            }
        } finally {
            zc.shutdownTestKit();
        }
    }

    @Test
    void stoppingTheSystemWithoutUnbindingFreesThePort() throws Exception {
        ActorTestKit other = TestRings.kit("uring.rings = 2");
        TestProbe<Event> handler = other.createTestProbe(Event.class);
        UringTcp.get(other.system()).manager().tell(new Bind(handler.getRef(), LOOPBACK));
        Bound bound = handler.expectMessageClass(Bound.class);
        other.shutdownTestKit();
        assertThrows(ConnectException.class, () -> connect(bound).close(), "nothing listens any more");
    }

    @Test
    void idleConnectionsAreClosed() throws Exception {
        ActorTestKit idle = TestRings.kit("uring { rings = 1, tcp.idle-timeout = 300ms }");
        try {
            TestProbe<Event> handler = idle.createTestProbe(Event.class);
            UringTcp.get(idle.system()).manager().tell(new Bind(handler.getRef(), LOOPBACK));
            Bound bound = handler.expectMessageClass(Bound.class);
            try (Socket client = connect(bound)) {
                Connected c = handler.expectMessageClass(Connected.class);
                c.connection().tell(new Register(handler.getRef()));
                ErrorClosed closed = handler.expectMessageClass(ErrorClosed.class, Duration.ofSeconds(5));
                assertTrue(closed.cause().contains("idle timeout"), closed.cause());
                assertEquals(-1, client.getInputStream().read());
            }
        } finally {
            idle.shutdownTestKit();
        }
    }

    @Test
    void aHandlerThatStopsWithoutClosingTakesItsConnectionWithIt() throws Exception {
        TestProbe<Event> bindHandler = probe();
        Bound bound = bind(bindHandler, false);
        try (Socket client = connect(bound)) {
            client.setSoTimeout(10_000);
            Connected c = bindHandler.expectMessageClass(Connected.class);
            var handler = testKit.spawn(org.apache.pekko.actor.typed.javadsl.Behaviors.<Event>receiveMessage(
                    e -> org.apache.pekko.actor.typed.javadsl.Behaviors.stopped()));
            c.connection().tell(new Register(handler));
            client.getOutputStream().write(1); // the handler gets it, and stops without a Close
            assertEquals(-1, client.getInputStream().read(), "the connection closed with its handler");
        }
        bound.listener().tell(new Unbind(bindHandler.getRef()));
        bindHandler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void aConnectionNobodyRegistersForIsClosedAfterTheRegisterTimeout() throws Exception {
        TestProbe<Event> bindHandler = probe();
        Bound bound = bind(bindHandler, false);
        try (Socket client = connect(bound)) {
            client.setSoTimeout(10_000);
            bindHandler.expectMessageClass(Connected.class); // and no Register
            long start = System.nanoTime();
            assertEquals(-1, client.getInputStream().read());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis >= 900 && millis < 5_000, "closed after the 1 s register timeout: " + millis + " ms");
            ErrorClosed closed = bindHandler.expectMessageClass(ErrorClosed.class);
            assertTrue(closed.cause().contains("uring.tcp.register-timeout"), closed.cause());
        }
        bound.listener().tell(new Unbind(bindHandler.getRef()));
        bindHandler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void aPullModeBindsConnectionsReceiveData() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, true);
        try (Socket client = connect(bound)) {
            bound.listener().tell(new ResumeAccepting(1));
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            client.getOutputStream().write("pulled".getBytes(StandardCharsets.US_ASCII));
            assertEquals("pulled", handler.expectMessageClass(Received.class).data().utf8String(),
                    "pull mode limits accepts, not reads");
            client.getOutputStream().write("again".getBytes(StandardCharsets.US_ASCII));
            assertEquals("again", handler.expectMessageClass(Received.class).data().utf8String());
            c.connection().tell(CloseCommand.ABORT);
            handler.expectMessage(TcpProtocol.Aborted.INSTANCE);
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void aHandlerMayRegisterLateWithinOurRegisterTimeoutWhateverPekkosSays() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        try (Socket client = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class);
            client.getOutputStream().write("early".getBytes(StandardCharsets.US_ASCII)); // before the Register
            // Past pekko.io.tcp.register-timeout (300 ms), within ours (1 s): the connection must still be there.
            handler.expectNoMessage(Duration.ofMillis(600));
            c.connection().tell(new Register(handler.getRef()));
            assertEquals("early", handler.expectMessageClass(Received.class).data().utf8String());
            c.connection().tell(new Write(ByteString.fromString("late"), new Ack("late")));
            assertEquals(new Ack("late"), handler.expectMessageClass(Ack.class));
            assertEquals("late", new String(client.getInputStream().readNBytes(4), StandardCharsets.US_ASCII));
            c.connection().tell(CloseCommand.ABORT);
            handler.expectMessage(TcpProtocol.Aborted.INSTANCE);
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void suspendReadingSentBeforeRegisterHoldsUntilResumed() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        try (Socket client = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(TcpProtocol.ReadControl.SUSPEND_READING);
            c.connection().tell(new Register(handler.getRef()));
            client.getOutputStream().write("held".getBytes(StandardCharsets.US_ASCII));
            handler.expectNoMessage(Duration.ofMillis(300)); // suspended: nothing is read
            c.connection().tell(TcpProtocol.ReadControl.RESUME_READING);
            assertEquals("held", handler.expectMessageClass(Received.class).data().utf8String());
            c.connection().tell(CloseCommand.ABORT);
            handler.expectMessage(TcpProtocol.Aborted.INSTANCE);
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    @Test
    void aConnectionWhoseActorFailsIsNotAnnouncedAgainAndCloses() throws Exception {
        TestProbe<Event> handler = probe();
        Bound bound = bind(handler, false);
        try (Socket client = connect(bound)) {
            client.setSoTimeout(10_000);
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            c.connection().tell(new Write(null, null)); // no data: the connection's actor fails on it
            try {
                assertEquals(-1, client.getInputStream().read(), "the failed connection closed");
            } catch (SocketException reset) {
                // closed with a reset: as good
            }
            // At most one event saying it ended; never a second Connected, as a restart would announce.
            List<Event> after = eventsUntilQuiet(handler, Duration.ofMillis(500));
            assertTrue(after.stream().noneMatch(Connected.class::isInstance), after.toString());
            assertTrue(after.stream().filter(TcpProtocol.ConnectionClosed.class::isInstance).count() <= 1,
                    after.toString());
        }
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }

    /** The events {@code probe} gets until none comes for {@code quiet}. */
    static List<Event> eventsUntilQuiet(TestProbe<Event> probe, Duration quiet) {
        List<Event> events = new ArrayList<>();
        while (true) {
            try {
                events.add(probe.receiveMessage(quiet));
            } catch (AssertionError none) {
                return events;
            }
        }
    }
}
