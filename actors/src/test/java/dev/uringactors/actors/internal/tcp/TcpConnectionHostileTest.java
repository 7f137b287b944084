package dev.uringactors.actors.internal.tcp;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.stream.UringTcp;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ReadControl;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** A connection under the races that once lost bytes: reading suspended and resumed mid-flight, huge writes. */
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class TcpConnectionHostileTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString(
            "uring { rings = 1, tcp { max-write-queue = 1 MiB } }")).build();

    private Bound bind(TestProbe<Event> handler) {
        dev.uringactors.actors.tcp.UringTcp.get(testKit.system()).manager().tell(new Bind(handler.getRef(), LOOPBACK));
        return handler.expectMessageClass(Bound.class);
    }

    static Socket connect(InetSocketAddress address) throws IOException {
        Socket s = new Socket(address.getAddress(), address.getPort());
        s.setSoTimeout(30_000);
        return s;
    }

    /** The connection a client of {@code handler}'s listener made, registered to {@code handler}. */
    private static Connected registered(TestProbe<Event> handler) {
        Connected c = handler.expectMessageClass(Connected.class);
        c.connection().tell(new Register(handler.getRef()));
        return c;
    }

    static byte[] random(int size, long seed) {
        byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** Writes {@code payload} from another thread, then shuts the client's side down: done when both are. */
    static CompletableFuture<Void> sendThenShutDown(Socket client, byte[] payload) {
        return CompletableFuture.runAsync(() -> {
            try {
                client.getOutputStream().write(payload);
                client.shutdownOutput();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void suspendAndResumeBackToBackWhileDataFlowsLosesNothing() throws Exception {
        TestProbe<Event> handler = testKit.createTestProbe(Event.class);
        Bound bound = bind(handler);
        byte[] payload = random(4 << 20, 7);
        try (Socket client = connect(bound.localAddress())) {
            Connected c = registered(handler);
            CompletableFuture<Void> sent = sendThenShutDown(client, payload);
            CRC32 crc = new CRC32();
            long received = 0;
            int toggles = 0;
            while (true) {
                Event e = handler.receiveMessage(Duration.ofSeconds(20));
                if (e instanceof Received r) {
                    crc.update(r.data().toArrayUnsafe());
                    received += r.data().size();
                    // Before the cancel of the recv can land: the late cancellation must not end the connection.
                    c.connection().tell(ReadControl.SUSPEND_READING);
                    c.connection().tell(ReadControl.RESUME_READING);
                    toggles++;
                } else {
                    assertInstanceOf(PeerClosed.class, e, "after " + received + " bytes");
                    break;
                }
            }
            sent.get(20, TimeUnit.SECONDS);
            CRC32 expected = new CRC32();
            expected.update(payload);
            assertEquals(payload.length, received, "every byte, after " + toggles + " suspend/resume pairs");
            assertEquals(expected.getValue(), crc.getValue());
        }
    }

    @Test
    void aWriteFiveTimesTheQueueBoundArrivesWhole() throws Exception {
        TestProbe<Event> handler = testKit.createTestProbe(Event.class);
        Bound bound = bind(handler);
        byte[] payload = random(5 << 20, 8);
        try (Socket client = connect(bound.localAddress())) {
            Connected c = registered(handler);
            c.connection().tell(new Write(ByteString.fromArray(payload), new Ack("all")));
            byte[] back = client.getInputStream().readNBytes(payload.length);
            assertArrayEquals(payload, back);
            assertEquals(new Ack("all"), handler.expectMessageClass(Ack.class, Duration.ofSeconds(10)));
        }
    }

    @Test
    void aStreamWhoseOnlyElementIsHugeSendsAllOfItBeforeClosing() throws Exception {
        byte[] payload = random(5 << 20, 9);
        // take(1) completes the input right after the element: the close must wait for it to be written.
        Flow<ByteString, ByteString, NotUsed> reply = Flow.fromSinkAndSource(Sink.ignore(),
                Source.repeat(ByteString.fromArray(payload)).take(1));
        UringTcp.ServerBinding binding = UringTcp.get(testKit.system()).bind("127.0.0.1", 0)
                .to(Sink.foreach(connection -> connection.handleWith(reply, testKit.system())))
                .run(testKit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Socket client = connect(binding.localAddress())) {
            InputStream in = client.getInputStream();
            assertArrayEquals(payload, in.readNBytes(payload.length));
            assertEquals(-1, in.read(), "then a clean end of stream");
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
