package dev.uringactors.actors.stream;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.Backend;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.FullListener;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.io.Inet;
import org.apache.pekko.io.TcpSO;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Framing;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class UringTcpStreamsTest {
    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString("uring.rings = 2"))
            .build();

    private UringTcp tcp() {
        return UringTcp.get(testKit.system());
    }

    /** An echo server on our bind; returns its binding. */
    private UringTcp.ServerBinding echoServer() throws Exception {
        return tcp().bind("127.0.0.1", 0)
                .to(Sink.foreach(c -> c.handleWith(Flow.of(ByteString.class), testKit.system())))
                .run(testKit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aMebibyteThroughOurBindAndOurOutgoingConnection() throws Exception {
        UringTcp.ServerBinding binding = echoServer();
        byte[] data = new byte[1 << 20];
        new Random(3).nextBytes(data);
        List<ByteString> chunks = Source.range(0, 15).map(i -> ByteString.fromArray(data, i << 16, 1 << 16))
                .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get();
        var result = Source.from(chunks)
                .viaMat(tcp().outgoingConnection("127.0.0.1", binding.localAddress().getPort()), Keep.right())
                .toMat(Sink.fold(ByteString.emptyByteString(), ByteString::concat), Keep.both())
                .run(testKit.system());
        UringTcp.OutgoingConnection connection = await(result.first());
        assertEquals(binding.localAddress().getPort(), connection.remoteAddress().getPort());
        assertArrayEquals(data, await(result.second()).toArray());
        await(binding.unbind());
    }

    @Test
    void pekkosOwnTcpClientTalksToOurServerAndOurClientToPekkosServer() throws Exception {
        UringTcp.ServerBinding ours = echoServer();
        ByteString request = ByteString.fromString("hello\nworld\n");
        ByteString viaPekkoClient = await(Source.single(request)
                .via(Tcp.get(testKit.system()).outgoingConnection("127.0.0.1", ours.localAddress().getPort()))
                .runFold(ByteString.emptyByteString(), ByteString::concat, testKit.system()));
        assertEquals(request, viaPekkoClient);

        Tcp.ServerBinding pekko = await(Tcp.get(testKit.system()).bind("127.0.0.1", 0)
                .to(Sink.foreach(c -> c.handleWith(Flow.of(ByteString.class)
                        .via(Framing.delimiter(ByteString.fromString("\n"), 100))
                        .map(line -> ByteString.fromString(line.utf8String().toUpperCase() + "\n")),
                        testKit.system())))
                .run(testKit.system()));
        ByteString viaOurClient = await(Source.single(request)
                .via(tcp().outgoingConnection("127.0.0.1", pekko.localAddress().getPort()))
                .runFold(ByteString.emptyByteString(), ByteString::concat, testKit.system()));
        assertEquals("HELLO\nWORLD\n", viaOurClient.utf8String());
        await(pekko.unbind());
        await(ours.unbind());
    }

    @Test
    void bindTakesPekkosSocketOptionsAndAnIdleTimeout() throws Exception {
        UringTcp.ServerBinding binding = await(tcp().bind("127.0.0.1", 0, 64,
                        List.of(TcpSO.keepAlive(true), TcpSO.receiveBufferSize(128 * 1024), TcpSO.tcpNoDelay(true)),
                        false, Optional.of(Duration.ofMillis(300)))
                .to(Sink.foreach(c -> c.handleWith(Flow.of(ByteString.class), testKit.system())))
                .run(testKit.system()));
        try (Socket idle = new Socket(binding.localAddress().getAddress(), binding.localAddress().getPort())) {
            idle.setSoTimeout(10_000);
            // A ring's connection closes (end of stream); Pekko's own Tcp, under the JDK backend, resets it.
            try {
                assertEquals(-1, idle.getInputStream().read(), "the server closed the idle connection");
            } catch (java.net.SocketException reset) {
                assertEquals(Backend.JDK, UringExtension.get(testKit.system()).backend(), reset.toString());
            }
        }
        await(binding.unbind());
        Inet.SocketOption unknown = new Inet.SocketOption() { };
        assertThrows(IllegalArgumentException.class, () -> tcp().bind("127.0.0.1", 0, 0, List.of(unknown), false,
                Optional.empty()));
    }

    /**
     * A handler whose input side fails cancels the connection's output with that failure: the connection is
     * aborted at once, even with writes that a peer reading nothing will never take (a graceful close would wait
     * for them for ever).
     */
    @Test
    void aHandlerThatFailsWhileItsWritesWaitAbortsTheConnectionAtOnce() throws Exception {
        CompletableFuture<Void> failed = new CompletableFuture<>();
        Flow<ByteString, ByteString, NotUsed> handler = Flow.fromSinkAndSource(
                Sink.foreach(b -> {
                    failed.complete(null);
                    throw new IllegalStateException("the handler's input failed");
                }),
                Source.repeat(ByteString.fromArray(new byte[64 * 1024]))); // more than the small buffers take
        UringTcp.ServerBinding binding = await(tcp().bind("127.0.0.1", 0, 64, List.of(TcpSO.sendBufferSize(4096)),
                        false, Optional.empty())
                .to(Sink.foreach(c -> c.handleWith(handler, testKit.system())))
                .run(testKit.system()));
        int port = binding.localAddress().getPort();
        // The client's end stays open: only the server's sockets are looked at.
        OpenFds.Snapshot listening = OpenFds.snapshot(OpenFds.Kind.socketsOnPort(port));
        try (Socket client = new Socket()) {
            client.setReceiveBufferSize(4096);
            client.connect(binding.localAddress());
            client.getOutputStream().write(1); // the handler fails on it; the client reads nothing
            await(failed);
            listening.assertNoneNew("the server's end of the connection is closed");
        }
        await(binding.unbind());
    }

    @Test
    void unbindStopsAccepting() throws Exception {
        UringTcp.ServerBinding binding = echoServer();
        InetSocketAddress address = binding.localAddress();
        await(binding.unbind());
        await(binding.whenUnbound());
        assertThrows(ConnectException.class, () -> new Socket(address.getAddress(), address.getPort()).close());
    }

    @Test
    void bindingATakenPortFailsTheBindingWithTheTypedError() throws Exception {
        UringTcp.ServerBinding first = echoServer();
        var second = tcp().bind("127.0.0.1", first.localAddress().getPort()).to(Sink.ignore())
                .run(testKit.system());
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(second));
        assertEquals(98, assertInstanceOf(UringException.class, e.getCause()).errno()); // EADDRINUSE
        await(first.unbind());
    }

    @Test
    void connectingToAClosedPortFailsTheConnectionAndTheStream() throws Exception {
        int port;
        try (var s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        var result = Source.single(ByteString.fromString("x"))
                .viaMat(tcp().outgoingConnection("127.0.0.1", port), Keep.right())
                .toMat(Sink.ignore(), Keep.both()).run(testKit.system());
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(result.first()));
        assertEquals(Errno.ECONNREFUSED, assertInstanceOf(UringException.class, e.getCause()).errno());
        assertThrows(ExecutionException.class, () -> await(result.second()));
    }

    @Test
    void aHostNameIsLookedUpWhenTheFlowRuns() throws Exception {
        UringTcp.ServerBinding binding = echoServer();
        var result = Source.single(ByteString.fromString("by name"))
                .viaMat(tcp().outgoingConnection("localhost", binding.localAddress().getPort()), Keep.right())
                .toMat(Sink.fold(ByteString.emptyByteString(), ByteString::concat), Keep.both())
                .run(testKit.system());
        assertEquals(binding.localAddress().getPort(), await(result.first()).remoteAddress().getPort());
        assertEquals("by name", await(result.second()).utf8String());
        await(binding.unbind());
    }

    @Test
    void aNameThatDoesNotResolveFailsTheStream() {
        // The tests' JVM looks names up in a hosts file of its own (jdk.net.hosts.file): no query leaves it.
        var result = Source.single(ByteString.fromString("x"))
                .viaMat(tcp().outgoingConnection("no-such-host.test", 80), Keep.right())
                .toMat(Sink.ignore(), Keep.both()).run(testKit.system());
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(result.first()));
        assertInstanceOf(java.net.UnknownHostException.class, e.getCause());
        assertThrows(ExecutionException.class, () -> await(result.second()));
    }

    @Test
    void aConnectTimeoutFailsTheStream() throws Exception {
        try (FullListener full = FullListener.open()) {
            var result = Source.<ByteString>never()
                    .viaMat(tcp().outgoingConnection(full.address(), Optional.empty(), List.of(), true,
                            Optional.of(Duration.ofMillis(200)), Optional.empty()), Keep.right())
                    .toMat(Sink.ignore(), Keep.both()).run(testKit.system());
            ExecutionException e = assertThrows(ExecutionException.class, () -> await(result.first()));
            assertInstanceOf(ConnectException.class, e.getCause());
            assertThrows(ExecutionException.class, () -> await(result.second()));
            full.assertNoConnectWaits();
        }
    }

    @Test
    void anOptionThisLibraryCannotSetIsRefusedWhenTheFlowIsMade() {
        Inet.SocketOption unknown = new Inet.SocketOption() {
        };
        assertThrows(IllegalArgumentException.class, () -> tcp().outgoingConnection(
                new InetSocketAddress("127.0.0.1", 80), Optional.empty(), List.of(unknown), true, Optional.empty(),
                Optional.empty()));
    }
}
