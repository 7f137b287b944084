package dev.uringactors.actors.internal.tcp;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.TcpStats;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A ring's TCP counters follow its connections: opened, closed, and writes refused for a full queue. */
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TcpStatsTest {
    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString(
            "uring { rings = 1, tcp.max-write-queue = 64 KiB }")).build();

    private TcpStats tcp() throws Exception {
        return UringExtension.get(testKit.system()).stats(0).toCompletableFuture().get(5, TimeUnit.SECONDS).tcp();
    }

    /** Waits up to 10 s for a counter to reach {@code expected}; returns what it was last. */
    private long await(ToLongFunction<TcpStats> counter, long expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long now;
        while ((now = counter.applyAsLong(tcp())) != expected && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return now;
    }

    @Test
    void connectionsAreCountedOpenThenClosedAndRefusedWritesCounted() throws Exception {
        TcpStats before = tcp();
        TestProbe<Event> handler = testKit.createTestProbe(Event.class);
        UringTcp.get(testKit.system()).manager().tell(new Bind(handler.getRef(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        InetSocketAddress address = handler.expectMessageClass(Bound.class).localAddress();
        List<Socket> clients = new ArrayList<>();
        List<Connected> connections = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            clients.add(new Socket(address.getAddress(), address.getPort()));
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            connections.add(c);
        }
        assertEquals(before.openConnections() + 3, await(TcpStats::openConnections, before.openConnections() + 3));
        assertEquals(before.connectionsOpened() + 3, tcp().connectionsOpened());

        // A peer that reads nothing: the second large write waits behind the first, past the queue's bound.
        Connected first = connections.get(0);
        first.connection().tell(Write.of(ByteString.fromArrayUnsafe(new byte[8 << 20])));
        first.connection().tell(Write.of(ByteString.fromArrayUnsafe(new byte[128 << 10])));
        handler.expectMessageClass(CommandFailed.class, Duration.ofSeconds(10));
        assertEquals(before.writesRefused() + 1, tcp().writesRefused());

        for (Socket client : clients) {
            client.close();
        }
        assertEquals(before.openConnections(), await(TcpStats::openConnections, before.openConnections()));
    }
}
