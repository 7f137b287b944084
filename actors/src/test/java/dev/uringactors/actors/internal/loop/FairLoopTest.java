package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One actor that keeps its ring busy for ever (it tells itself a message after each message, as a hot actor or a
 * busy stream stage does) must not starve what other threads hand the ring: asks, timers, the TCP timeouts.
 */
@ExtendWith(RequiresIoUring.class)
class FairLoopTest {
    /** Not starved: an ask is answered within seconds however busy the machine (its latency is the bench's). */
    private static final Duration ANSWER_BOUND = Duration.ofSeconds(5);

    // The register timeout shorter than the idle one: an unregistered connection has no data either, and with
    // equal timeouts an idle check on a loaded CPU could close it first, for the other reason.
    private final ActorTestKit kit = TestRings.kit(
            "uring { rings = 1, tcp { idle-timeout = 600ms, register-timeout = 300ms } }");
    private final AtomicLong busyTurns = new AtomicLong();

    private record Ping(ActorRef<Long> replyTo) {
    }

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    private Behavior<String> busy() {
        return Behaviors.receive((ctx, message) -> {
            busyTurns.incrementAndGet();
            ctx.getSelf().tell("again");
            return Behaviors.same();
        });
    }

    /** Starts the busy actor on ring 0 and waits until it is running. */
    private void keepRingBusy() {
        kit.spawn(busy(), "busy", IoBackends.rings(kit.system()).dispatcher(0)).tell("go");
        awaitBusyTurns(10_000, "the busy actor runs");
    }

    /** Waits up to 10 s until the busy actor has taken {@code turns} turns in all. */
    private void awaitBusyTurns(long turns, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (busyTurns.get() < turns && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(busyTurns.get() >= turns, what + ": " + busyTurns.get() + " of " + turns + " turns");
    }

    @Test
    void asksFromAnotherThreadAreAnsweredWhileAnActorKeepsTheRingBusy() throws Exception {
        ActorRef<Ping> echo = kit.spawn(Behaviors.receiveMessage(p -> {
            p.replyTo().tell(System.nanoTime());
            return Behaviors.same();
        }), "echo", IoBackends.rings(kit.system()).dispatcher(0));
        keepRingBusy();
        for (int i = 0; i < 100; i++) {
            CompletableFuture<Long> answer = AskPattern.<Ping, Long>ask(echo, Ping::new, ANSWER_BOUND,
                    kit.system().scheduler()).toCompletableFuture();
            assertDoesNotThrow(() -> answer.get(ANSWER_BOUND.toMillis(), TimeUnit.MILLISECONDS),
                    "ask " + (i + 1) + " of 100 answered within " + ANSWER_BOUND);
        }
        // Fair, not a pause: the asks answered, the busy actor still runs.
        awaitBusyTurns(busyTurns.get() + 10_000, "the busy actor kept running");
    }

    @Test
    void timersOnTheBusyRingFire() {
        TestProbe<String> fired = kit.createTestProbe();
        kit.spawn(Behaviors.<String>withTimers(timers -> {
            timers.startSingleTimer("tick", Duration.ofMillis(100));
            return Behaviors.receiveMessage(m -> {
                fired.getRef().tell(m);
                return Behaviors.same();
            });
        }), "timed", IoBackends.rings(kit.system()).dispatcher(0));
        keepRingBusy();
        fired.expectMessage(Duration.ofSeconds(2), "tick");
    }

    @Test
    void idleAndRegisterTimeoutsFireOnTheBusyRing() throws Exception {
        TestProbe<Event> handler = kit.createTestProbe(Event.class);
        UringTcp.get(kit.system()).manager().tell(new Bind(handler.getRef(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        Bound bound = handler.expectMessageClass(Bound.class);
        keepRingBusy();
        try (Socket registered = connect(bound); Socket unregistered = connect(bound)) {
            Connected first = handler.expectMessageClass(Connected.class);
            first.connection().tell(new Register(handler.getRef()));
            handler.expectMessageClass(Connected.class); // nobody registers for the second
            String causes = handler.expectMessageClass(ErrorClosed.class, Duration.ofSeconds(5)).cause()
                    + " / " + handler.expectMessageClass(ErrorClosed.class, Duration.ofSeconds(5)).cause();
            assertTrue(causes.contains("idle timeout"), causes);
            assertTrue(causes.contains("uring.tcp.register-timeout"), causes);
            assertEquals(-1, registered.getInputStream().read());
            assertEquals(-1, unregistered.getInputStream().read());
        }
    }

    private static Socket connect(Bound bound) throws Exception {
        Socket socket = new Socket(bound.localAddress().getAddress(), bound.localAddress().getPort());
        socket.setSoTimeout(10_000);
        return socket;
    }
}
