package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
class WaitStrategyActorsTest {
    /** What a light load cost the ring thread: its CPU time, and the waits it blocked in the kernel. */
    private record Cost(long cpuNanos, long blocks) {
    }

    /** Runs {@code requests} NOP round trips, one every {@code gapNanos}; returns what they cost the ring thread. */
    private static Cost lightLoad(String strategy, int requests, long gapNanos) throws Exception {
        ActorTestKit testKit = TestRings.kit("uring { rings = 1, wait-strategy = " + strategy + " }");
        try {
            UringExtension uring = UringExtension.get(testKit.system());
            TestProbe<StatusReply<Done>> probe = testKit.createTestProbe();
            RingLoopStats before = TestRings.stats(testKit.system(), 0);
            assertEquals(strategy, before.waitStrategy());
            for (int i = 0; i < requests; i++) {
                UringFiles.get(testKit.system()).ring(0).tell(new RingProtocol.Nop(probe.getRef()));
                assertTrue(probe.receiveMessage(Duration.ofSeconds(5)).isSuccess());
                LockSupport.parkNanos(gapNanos);
            }
            RingLoopStats after = TestRings.stats(testKit.system(), 0);
            return new Cost(after.cpuTimeNanos() - before.cpuTimeNanos(),
                    after.waitStats().blocks() - before.waitStats().blocks());
        } finally {
            testKit.shutdownTestKit();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"interrupt", "classic", "hybrid"})
    void eachStrategyServesRequests(String strategy) throws Exception {
        assertTrue(lightLoad(strategy, 200, 0).cpuNanos() > 0);
    }

    /**
     * Classic spins through the gaps between requests; hybrid, with only the wake-up read in flight, blocks in the
     * kernel (how much CPU that saves is the bench's figure, wait-modes). Most gaps, not all: on a busy machine
     * the next request may come before the ring thread has got to its wait.
     */
    @Test
    void underLightLoadHybridBlocksInTheKernelBetweenRequests() throws Exception {
        int requests = 300;
        long blocks = lightLoad("hybrid", requests, 2_000_000).blocks();
        assertTrue(blocks >= requests / 2, "hybrid blocked in the kernel " + blocks + " times in " + requests
                + " gaps");
    }

    /**
     * A socket receive may wait for minutes: hybrid must not spin for it. With 100 idle connections (100 multishot
     * receives in flight, plus the wake-up read) the ring thread should sleep in the kernel.
     */
    @Test
    void hybridDoesNotSpinForIdleConnections() throws Exception {
        ActorTestKit testKit = TestRings.kit("uring { rings = 1, wait-strategy = hybrid }");
        java.util.List<java.net.Socket> clients = new java.util.ArrayList<>();
        try {
            UringExtension uring = UringExtension.get(testKit.system());
            TestProbe<TcpProtocol.Event> handler = testKit.createTestProbe();
            UringTcp.get(testKit.system()).manager().tell(new TcpProtocol.Bind(handler.getRef(),
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0)));
            TcpProtocol.Bound bound = handler.expectMessageClass(TcpProtocol.Bound.class);
            for (int i = 0; i < 100; i++) {
                clients.add(new java.net.Socket(bound.localAddress().getAddress(), bound.localAddress().getPort()));
                handler.expectMessageClass(TcpProtocol.Connected.class).connection()
                        .tell(new TcpProtocol.Register(handler.getRef()));
            }
            RingLoopStats before = TestRings.stats(testKit.system(), 0);
            Thread.sleep(1000); // the window measured: the connections stay idle for a second
            RingLoopStats after = TestRings.stats(testKit.system(), 0);
            assertTrue(after.requestsInFlight() > 100, "the receives are in flight: " + after.requestsInFlight());
            long cpu = after.cpuTimeNanos() - before.cpuTimeNanos();
            assertTrue(cpu < 100_000_000, "ring thread CPU over an idle second: " + cpu / 1_000_000 + " ms");
            assertEquals(0, after.waitStats().spinNanos() - before.waitStats().spinNanos(), "no spinning");
        } finally {
            for (java.net.Socket c : clients) {
                c.close();
            }
            testKit.shutdownTestKit();
        }
    }
}
