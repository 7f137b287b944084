package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.stream.UringTcp;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import dev.uringactors.actors.tcp.TcpProtocol.Unbound;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the connections of a bind are spread over the rings: a shared listening socket deals them out however they
 * arrive (the kernel would wake the same ring's accept for a whole burst); SO_REUSEPORT sockets leave it to the
 * kernel's hash. A ring that closes for good takes only its own connections with it.
 */
@ExtendWith(RequiresIoUring.class)
class ListenerSpreadTest {
    private static final int RINGS = 2;
    private static final int BURST = 64;
    private ActorTestKit kit;
    /** The ring of each accepted connection, by the client's port. */
    private final Map<Integer, Integer> ringOfClient = new ConcurrentHashMap<>();
    private final List<Socket> clients = new ArrayList<>();
    /** Where the bind listens. */
    private InetSocketAddress address;
    /** Unbinds a streams bind. */
    private Supplier<CompletionStage<?>> unbind;
    private OpenFds.Snapshot socketsBeforeBind;

    @AfterEach
    void shutDown() throws Exception {
        for (Socket c : clients) {
            c.close();
        }
        kit.shutdownTestKit();
    }

    @Test
    void aSharedListenerDealsABurstEvenlyOverTheRings() throws Exception {
        int[] perRing = burst("shared");
        assertTrue(Arrays.stream(perRing).allMatch(n -> n <= BURST * 6 / 10),
                "no ring holds more than 60%: " + Arrays.toString(perRing));
    }

    @Test
    void aSharedListenerDealsNewConnectionsToTheRingThatLostItsOwn() throws Exception {
        burst("shared");
        for (Socket client : clients) {
            if (ringOfClient.get(client.getLocalPort()) == 1) {
                client.close();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (TestRings.stats(kit.system(), 1).tcp().openConnections() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(0, TestRings.stats(kit.system(), 1).tcp().openConnections(), "ring 1's connections closed");
        ringOfClient.clear();
        for (int i = 0; i < BURST / 4; i++) { // fewer than ring 0 holds: all of them belong on ring 1
            clients.add(connect());
        }
        awaitAccepted(BURST / 4);
        assertTrue(ringOfClient.values().stream().allMatch(r -> r == 1),
                "each new connection went to the ring with the fewest: " + ringOfClient.values());
    }

    @Test
    void reusePortSocketsSpreadABurstByTheKernelsHash() throws Exception {
        int[] perRing = burst("reuse-port");
        System.out.println("listener = reuse-port, " + BURST + " connections on " + RINGS + " rings: "
                + Arrays.toString(perRing));
        assertTrue(Arrays.stream(perRing).allMatch(n -> n > 0), "every ring takes some: " + Arrays.toString(perRing));
    }

    @Test
    void aRingThatClosesForGoodLeavesTheConnectionsItDealtToOtherRingsAlone() throws Exception {
        burst("shared, supervision { max-restarts = 0, within = 1m }");
        TestRings.fault(kit.system(), 0, "injected");
        for (Socket client : clients) {
            if (ringOfClient.get(client.getLocalPort()) == 1) {
                client.getOutputStream().write("alive".getBytes(StandardCharsets.US_ASCII));
                assertEquals("alive", new String(client.getInputStream().readNBytes(5), StandardCharsets.US_ASCII));
            } else {
                assertEnds(client);
            }
        }
        ringOfClient.clear();
        try (Socket late = connect()) {
            awaitAccepted(1);
            assertEquals(1, ringOfClient.get(late.getLocalPort()), "the ring left takes new connections");
        }
        for (Socket c : clients) {
            c.close();
        }
        TestRings.get(unbind.get());
        socketsBeforeBind.assertNoneNew("sockets left open");
    }

    /**
     * Ring 0 closes for good while its listener has not yet taken RingClosed from its mailbox (the test holds it
     * back): ring 1's listener deals it nothing all the same, for the bind heard of the ring's end as it happened.
     */
    @Test
    void aRingThatHasJustClosedIsDealtNothingBeforeItsListenerHeardOfIt() throws Exception {
        CountDownLatch told = new CountDownLatch(1);
        Set<ActorRef<ListenerCommand>> held = ConcurrentHashMap.newKeySet();
        kit = TestRings.kit("uring { rings = " + RINGS + ", tcp.listener = shared, "
                + "supervision { max-restarts = 0, within = 1m } }");
        socketsBeforeBind = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        TestProbe<Event> bindEvents = kit.createTestProbe(Event.class);
        ActorRef<ManagerCommand> manager = kit.spawn(RingTcpManager.create(IoBackends.rings(kit.system()),
                new TcpInterceptors(listener -> holdingRingClosed(listener, told, held), UnaryOperator.identity())));
        manager.tell(new Bind(kit.spawn(notingRings(bindEvents.getRef())), TcpProtocolTest.LOOPBACK));
        Bound bound = bindEvents.expectMessageClass(Bound.class);
        address = bound.localAddress();
        TestRings.fault(kit.system(), 0, "injected");
        // Its listener hears of the end with RingClosed (held back here), or, when the fault restarted it first,
        // finds the ring closed as it starts again: either way, no new connection may go to ring 0 from now on.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!told.await(10, TimeUnit.MILLISECONDS) && IoBackends.rings(kit.system()).loop(0).issuer().isOpen()) {
            assertTrue(System.nanoTime() < deadline, "ring 0 closed for good within 10 s");
        }
        for (int i = 0; i < BURST / 4; i++) {
            clients.add(connect());
        }
        awaitAccepted(BURST / 4);
        assertTrue(ringOfClient.values().stream().allMatch(r -> r == 1), "all on ring 1: " + ringOfClient.values());
        held.forEach(l -> l.tell(TcpListener.RingClosed.INSTANCE));
        for (Socket c : clients) {
            c.close();
        }
        bound.listener().tell(new Unbind(bindEvents.getRef()));
        bindEvents.expectMessage(Unbound.INSTANCE);
        socketsBeforeBind.assertNoneNew("sockets left open");
    }

    /** A bind's handler that notes each connection's ring, handles it itself, and passes the bind's events on. */
    private Behavior<Event> notingRings(ActorRef<Event> bindEvents) {
        return Behaviors.setup(ctx -> Behaviors.receive(Event.class)
                .onMessage(Connected.class, c -> {
                    ringOfClient.put(c.remoteAddress().getPort(), c.ring());
                    c.connection().tell(new Register(ctx.getSelf()));
                    return Behaviors.same();
                })
                .onMessage(Bound.class, b -> {
                    bindEvents.tell(b);
                    return Behaviors.same();
                })
                .onMessage(Unbound.class, u -> {
                    bindEvents.tell(u);
                    return Behaviors.same();
                })
                .build());
    }

    /**
     * {@code listener}, but the first RingClosed it gets is held back: {@code told} counts down, and the listener
     * goes into {@code held} to be told again.
     */
    private static Behavior<ListenerCommand> holdingRingClosed(Behavior<ListenerCommand> listener,
                                                               CountDownLatch told,
                                                               Set<ActorRef<ListenerCommand>> held) {
        return Behaviors.intercept(() -> new BehaviorInterceptor<ListenerCommand, ListenerCommand>(
                ListenerCommand.class) {
            @Override
            public Behavior<ListenerCommand> aroundReceive(TypedActorContext<ListenerCommand> ctx,
                                                           ListenerCommand message,
                                                           ReceiveTarget<ListenerCommand> target) {
                if (message == TcpListener.RingClosed.INSTANCE && held.add(ctx.asJava().getSelf())) {
                    told.countDown();
                    return Behaviors.same();
                }
                return target.apply(ctx, message);
            }
        }, listener);
    }

    /** Binds an echo server with {@code listener}, connects {@link #BURST} clients at once; the count per ring. */
    private int[] burst(String listener) throws Exception {
        bind(listener);
        for (int i = 0; i < BURST; i++) {
            clients.add(connect());
        }
        awaitAccepted(BURST);
        int[] perRing = new int[RINGS];
        ringOfClient.values().forEach(r -> perRing[r]++);
        return perRing;
    }

    /** Binds an echo server with {@code listener} on {@link #RINGS} rings, noting each connection's ring. */
    private void bind(String listener) throws Exception {
        kit = TestRings.kit("uring { rings = " + RINGS + ", tcp.listener = " + listener + " }");
        Materializer mat = Materializer.matFromSystem(kit.system());
        socketsBeforeBind = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        UringTcp.ServerBinding binding = TestRings.get(UringTcp.get(kit.system())
                .bind(InetAddress.getLoopbackAddress().getHostAddress(), 0)
                .to(Sink.foreach(c -> {
                    ringOfClient.put(c.remoteAddress().getPort(), c.ring());
                    c.handleWith(Flow.<ByteString>create(), mat);
                }))
                .run(mat));
        address = binding.localAddress();
        unbind = binding::unbind;
    }

    private void awaitAccepted(int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ringOfClient.size() < count && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(count, ringOfClient.size(), "every connection was accepted");
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(address.getAddress(), address.getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    private static void assertEnds(Socket s) throws IOException {
        try {
            assertEquals(-1, s.getInputStream().read(), "the connection of the closed ring ends");
        } catch (SocketException reset) {
            assertTrue(String.valueOf(reset.getMessage()).contains("reset"), reset.toString());
        }
    }
}
