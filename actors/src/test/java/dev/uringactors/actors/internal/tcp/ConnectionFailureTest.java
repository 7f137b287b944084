package dev.uringactors.actors.internal.tcp;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import dev.uringactors.actors.tcp.TcpProtocol.Unbound;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection whose actor fails (throws) tells its handler one {@link ErrorClosed}, as Pekko IO's does, and
 * closes its socket. The failure comes from an interceptor that throws on a message only it knows, wrapped around
 * each connection by a manager of the test's own ({@link TcpInterceptors}).
 */
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConnectionFailureTest {
    /** Fails the connection that gets it. */
    private enum Fail { INSTANCE }

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString(
            "uring { rings = 1, tcp.idle-timeout = infinite }")).build();

    private ActorRef<ManagerCommand> manager;

    @BeforeAll
    void spawnAFailingManager() {
        manager = testKit.spawn(RingTcpManager.create(IoBackends.rings(testKit.system()),
                new TcpInterceptors(UnaryOperator.identity(), ConnectionFailureTest::failingOnFail)));
    }

    private static Behavior<Object> failingOnFail(Behavior<Object> connection) {
        return Behaviors.intercept(
                () -> new BehaviorInterceptor<Object, Object>(Object.class) {
                    @Override
                    public Behavior<Object> aroundReceive(TypedActorContext<Object> ctx, Object message,
                                                          ReceiveTarget<Object> target) {
                        if (message == Fail.INSTANCE) {
                            throw new IllegalStateException("injected failure");
                        }
                        return target.apply(ctx, message);
                    }
                }, connection);
    }

    @Test
    void aRegisteredConnectionWhoseActorFailsEndsWithOneErrorClosedAndNoSocketLeft() throws Exception {
        TestProbe<Event> handler = testKit.createTestProbe(Event.class);
        Bound bound = bind(handler);
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        try (Socket client = connect(bound)) {
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            client.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            assertEquals("ping", handler.expectMessageClass(Received.class).data().utf8String());
            c.connection().unsafeUpcast().tell(Fail.INSTANCE);
            assertEndsOnce(handler);
            assertEquals(-1, client.getInputStream().read(), "the server's side is closed");
        }
        sockets.assertNoneNew("sockets left open");
        unbind(bound, handler);
    }

    @Test
    void aConnectionNotYetRegisteredTellsItsOwner() throws Exception {
        TestProbe<Event> owner = testKit.createTestProbe(Event.class);
        Bound bound = bind(owner);
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        try (Socket client = connect(bound)) {
            owner.expectMessageClass(Connected.class).connection().unsafeUpcast().tell(Fail.INSTANCE);
            assertEndsOnce(owner);
            assertEquals(-1, client.getInputStream().read(), "the server's side is closed");
        }
        sockets.assertNoneNew("sockets left open");
        unbind(bound, owner);
    }

    private static void assertEndsOnce(TestProbe<Event> handler) {
        ErrorClosed closed = handler.expectMessageClass(ErrorClosed.class, Duration.ofSeconds(10));
        assertTrue(closed.cause().contains("actor stopped"), closed.cause());
        handler.expectNoMessage(Duration.ofMillis(300)); // one event, not two
    }

    private Bound bind(TestProbe<Event> handler) {
        manager.tell(new Bind(handler.getRef(), LOOPBACK));
        return handler.expectMessageClass(Bound.class);
    }

    private static Socket connect(Bound bound) throws Exception {
        Socket s = new Socket(bound.localAddress().getAddress(), bound.localAddress().getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    private static void unbind(Bound bound, TestProbe<Event> handler) {
        bound.listener().tell(new Unbind(handler.getRef()));
        handler.expectMessage(Unbound.INSTANCE);
    }
}
