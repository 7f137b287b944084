package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.tcp.ListenerStats;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.GetListenerStats;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import dev.uringactors.actors.tcp.TcpProtocol.Unbound;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bind's accepting fails on every ring ({@link ListenerFaults} makes it fail as an unexpected accept error
 * would): each ring's listener is restarted with back-off while the listening sockets keep their backlog,
 * connections that arrive meanwhile are served after the restart, and connections from before the failure go on.
 */
@ExtendWith(RequiresIoUring.class)
class ListenerSupervisionTest {
    private ActorTestKit kit;

    @AfterEach
    void shutDown() {
        kit.shutdownTestKit();
    }

    @ParameterizedTest(name = "listener = {0}")
    @ValueSource(strings = {"shared", "reuse-port"})
    void aFailedListenerIsRestartedAndWhatWaitedInTheBacklogIsServed(String listener) throws Exception {
        kit = TestRings.kit("uring { rings = 2, tcp { listener = " + listener
                + ", accept-backoff = 200ms } }");
        OpenFds.Snapshot socketsBefore = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        TestProbe<Event> handler = kit.createTestProbe(Event.class);
        ListenerFaults faults = new ListenerFaults();
        managerWith(faults).tell(new Bind(handler.getRef(), TcpProtocolTest.LOOPBACK));
        Bound bound = handler.expectMessageClass(Bound.class);
        serveAcrossAFailure(handler, bound, faults);
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.fishForMessage(Duration.ofSeconds(10), e -> e == Unbound.INSTANCE
                ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore());
        socketsBefore.assertNoneNew("the listening sockets and every connection are closed");
    }

    private void serveAcrossAFailure(TestProbe<Event> handler, Bound bound, ListenerFaults faults) throws Exception {
        List<Socket> clients = new ArrayList<>();
        try {
            clients.add(connect(bound));
            Connected first = handler.expectMessageClass(Connected.class, Duration.ofSeconds(10));
            first.connection().tell(new Register(handler.getRef()));

            faults.failAll(2);
            for (int i = 0; i < 5; i++) {
                clients.add(connect(bound)); // the kernel completes the handshake: they wait in the backlog
            }
            List<Connected> waited = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Connected c = handler.expectMessageClass(Connected.class, Duration.ofSeconds(10));
                c.connection().tell(new Register(handler.getRef()));
                waited.add(c);
            }
            for (Connected c : waited) {
                echoOnce(handler, c, clients, "after the restart, from port " + c.remoteAddress().getPort());
            }
            echoOnce(handler, first, clients, "from before the failure");

            TestProbe<ListenerStats> stats = kit.createTestProbe();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            ListenerStats s;
            do { // a ring that accepted none of them may still be in its back-off
                bound.listener().tell(new GetListenerStats(stats.getRef()));
                s = stats.receiveMessage();
            } while (s.restarts() < 2 && System.nanoTime() < deadline);
            assertEquals(6, s.accepted(), s.toString());
            assertEquals(2, s.restarts(), "each ring's listener restarted once: " + s);
        } finally {
            for (Socket c : clients) {
                c.close();
            }
        }
    }

    /**
     * A shared listener on two rings fails, and ring 0 closes for good while its listener waits in its back-off:
     * the listener's next incarnation finds the ring closed and, like one that heard of it, waits for the
     * connections it dealt to ring 1, which go on; those on ring 0 end with it.
     */
    @Test
    void aListenerRestartedAfterItsRingClosedKeepsItsConnectionsOnOtherRings() throws Exception {
        kit = TestRings.kit("uring { rings = 2, tcp { listener = shared, accept-backoff = 2s }, "
                + "supervision { max-restarts = 0, within = 1m } }");
        OpenFds.Snapshot socketsBefore = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        TestProbe<Event> handler = kit.createTestProbe(Event.class);
        List<Socket> clients = new ArrayList<>();
        ListenerFaults faults = new ListenerFaults();
        try {
            managerWith(faults).tell(new Bind(handler.getRef(), TcpProtocolTest.LOOPBACK));
            Bound bound = handler.expectMessageClass(Bound.class);
            List<Integer> rings = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                clients.add(connect(bound));
                Connected c = handler.expectMessageClass(Connected.class, Duration.ofSeconds(10));
                assertEquals(clients.get(i).getLocalPort(), c.remoteAddress().getPort(), "connections in order");
                c.connection().tell(new Register(kit.spawn(echo(c.connection()))));
                rings.add(c.ring());
            }
            assertTrue(rings.contains(1), "ring 1 was dealt connections: " + rings);
            faults.failAll(2);
            TestRings.fault(kit.system(), 0, "injected");
            awaitRestarts(bound, 2);
            for (int i = 0; i < clients.size(); i++) {
                Socket client = clients.get(i);
                client.getOutputStream().write("alive".getBytes(StandardCharsets.US_ASCII));
                byte[] echoed = readOrEnd(client, 5);
                if (rings.get(i) == 1) {
                    assertEquals("alive", echoed == null ? "the end" : new String(echoed, StandardCharsets.US_ASCII),
                            "a connection on ring 1 goes on");
                } else {
                    assertNull(echoed, "a connection on ring 0 ends with it");
                }
            }
            assertEquals(rings.stream().filter(r -> r == 1).count(),
                    TestRings.stats(kit.system(), 1).tcp().openConnections(), "still open on ring 1");
            for (Socket c : clients) {
                c.close();
            }
            bound.listener().tell(new Unbind(handler.getRef()));
            handler.fishForMessage(Duration.ofSeconds(10), e -> e == Unbound.INSTANCE
                    ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                    : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore());
        } finally {
            for (Socket c : clients) {
                c.close();
            }
        }
        socketsBefore.assertNoneNew("the listening socket and every connection are closed");
    }

    /** A TCP manager of the test's own, whose listeners {@code faults} can fail. */
    private ActorRef<TcpProtocol.ManagerCommand> managerWith(ListenerFaults faults) {
        return kit.spawn(RingTcpManager.create(IoBackends.rings(kit.system()), faults.interceptors()));
    }

    /** Writes back what its connection receives. */
    private static Behavior<Event> echo(ActorRef<TcpProtocol.ConnectionCommand> connection) {
        return Behaviors.receive(Event.class)
                .onMessage(Received.class, r -> {
                    connection.tell(new Write(r.data(), null));
                    return Behaviors.same();
                })
                .build();
    }

    /** {@code n} bytes from {@code s}, or null when the connection ends (closed or reset) first. */
    private static byte[] readOrEnd(Socket s, int n) throws Exception {
        try {
            byte[] bytes = s.getInputStream().readNBytes(n);
            return bytes.length == n ? bytes : null;
        } catch (SocketException reset) {
            return null;
        }
    }

    private void awaitRestarts(Bound bound, int restarts) {
        TestProbe<ListenerStats> stats = kit.createTestProbe();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        ListenerStats s;
        do {
            bound.listener().tell(new GetListenerStats(stats.getRef()));
            s = stats.receiveMessage();
        } while (s.restarts() < restarts && System.nanoTime() < deadline);
        assertEquals(restarts, s.restarts(), "each ring's listener restarted: " + s);
    }

    private static Socket connect(Bound bound) throws Exception {
        Socket s = new Socket(bound.localAddress().getAddress(), bound.localAddress().getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    /** The client of {@code c} sends {@code text}, the handler gets it and writes it back, the client reads it. */
    private static void echoOnce(TestProbe<Event> handler, Connected c, List<Socket> clients, String text)
            throws Exception {
        Socket client = clients.stream().filter(s -> s.getLocalPort() == c.remoteAddress().getPort()).findFirst()
                .orElseThrow();
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        client.getOutputStream().write(bytes);
        Received r = handler.expectMessageClass(Received.class, Duration.ofSeconds(10));
        assertEquals(text, r.data().utf8String());
        c.connection().tell(new Write(ByteString.fromArray(bytes), null));
        assertEquals(text, new String(client.getInputStream().readNBytes(bytes.length), StandardCharsets.US_ASCII));
    }
}
