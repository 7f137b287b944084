package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A large write goes out a {@code uring.tcp.write-chunk} at a time: a peer that reads it slowly holds one chunk of
 * native memory on the server, not the whole write (with pieces of {@code buffers.max-io-size}, 300 clients
 * reading 1 MiB answers slowly pinned 300 MiB).
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriteChunkTest {
    private static final int CHUNK = 64 * 1024;
    private final ActorTestKit testKit = TestRings.kit(
            "uring { rings = 1, buffers.max-io-size = 4 MiB, tcp.write-chunk = 64 KiB }");

    @AfterAll
    void shutdown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aSlowReaderOfALargeWriteHoldsOneChunkOfNativeMemory() throws Exception {
        TestProbe<Event> handler = testKit.createTestProbe(Event.class);
        UringTcp.get(testKit.system()).manager().tell(new Bind(handler.getRef(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        Bound bound = handler.expectMessageClass(Bound.class);
        byte[] payload = new byte[4 << 20];
        new Random(11).nextBytes(payload);
        try (Socket client = new Socket()) {
            client.setReceiveBufferSize(16 * 1024); // the kernel takes little of the write at a time
            client.setSoTimeout(30_000);
            client.connect(bound.localAddress());
            Connected c = handler.expectMessageClass(Connected.class);
            c.connection().tell(new Register(handler.getRef()));
            // A byte received first: the ring's receive buffers exist before the measure starts.
            client.getOutputStream().write(1);
            handler.expectMessageClass(Received.class);
            long before = NativeBuffer.liveBytes();
            c.connection().tell(new Write(ByteString.fromArray(payload), new Ack("all")));
            // Read in small steps, each one a moment at which the rest of the write waits on the server.
            InputStream in = client.getInputStream();
            byte[] back = new byte[payload.length];
            long mostHeld = 0;
            for (int read = 0; read < back.length; ) {
                read += in.read(back, read, Math.min(8 * 1024, back.length - read));
                mostHeld = Math.max(mostHeld, NativeBuffer.liveBytes() - before);
            }
            assertArrayEquals(payload, back);
            assertEquals(new Ack("all"), handler.expectMessageClass(Ack.class, Duration.ofSeconds(10)));
            // One chunk (aligned) in flight, plus a little of what else the ring allocates meanwhile.
            assertTrue(mostHeld <= 2L * CHUNK, "held " + mostHeld + " bytes of native memory for a 4 MiB write "
                    + "sent " + CHUNK + " bytes at a time");
        }
    }
}
