package dev.uringactors.actors.internal.tcp;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ErrorClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import dev.uringactors.actors.tcp.TcpSocketOptions;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.io.TcpSO;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sending part of a file: every byte in order between writes, in pieces, and a file that ends too soon. Whole
 * pieces are spliced here and shorter ones read and sent, so that both ways run in every test. The ring has two
 * kernel workers for unbounded work, which every SPLICE is: a peer that stops reading must not keep one.
 */
@ExtendWith({RequiresIoUring.class, TestKitJUnit5Extension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class WriteFileTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int CHUNK = 16 * 1024;

    @JUnit5TestKit
    ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(ConfigFactory.parseString(
            "uring { rings = 1, io-wq.max-workers.unbounded = 2, tcp { file-chunk = " + CHUNK
                    + ", splice-threshold = " + (CHUNK - 1) + " } }"))
            .build();

    @TempDir
    Path tmp;

    /** A loopback client of a fresh listener, and the server side's connection, registered to {@code handler}. */
    private record Client(TestProbe<Event> handler, Socket socket, Connected connected) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private Client connect() throws IOException {
        return connect(testKit, TcpSocketOptions.DEFAULT, 0);
    }

    /**
     * As {@link #connect()}, in {@code kit}'s system, with options for the listener and, if above 0, the client's
     * receive buffer.
     */
    private static Client connect(ActorTestKit kit, TcpSocketOptions options, int receiveBuffer) throws IOException {
        TestProbe<Event> handler = kit.createTestProbe(Event.class);
        UringTcp.get(kit.system()).manager().tell(new Bind(handler.getRef(), LOOPBACK, 0, false, options));
        InetSocketAddress address = handler.expectMessageClass(Bound.class).localAddress();
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer); // before connecting: it sets the window scale
        }
        socket.connect(address);
        socket.setSoTimeout(20_000);
        Connected c = handler.expectMessageClass(Connected.class);
        c.connection().tell(new Register(handler.getRef()));
        return new Client(handler, socket, c);
    }

    private FileHandle open(Path path) throws Exception {
        return open(testKit, path);
    }

    private static FileHandle open(ActorTestKit kit, Path path) throws Exception {
        return UringFiles.get(kit.system()).open(path).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
    }

    @Test
    void partsOfAFileGoOutInOrderWithTheWritesAroundThem() throws Exception {
        byte[] content = new byte[10 * CHUNK + 123]; // several pieces and a short last one
        new Random(3).nextBytes(content);
        Path path = Files.write(tmp.resolve("data"), content);
        FileHandle file = open(path);
        try (Client client = connect()) {
            TestProbe<Event> handler = client.handler();
            Connected c = client.connected();
            Socket s = client.socket();
            c.connection().tell(Write.of(ByteString.fromString("head|")));
            c.connection().tell(new WriteFile(file, 0, content.length, new Ack("whole")));
            c.connection().tell(new WriteFile(file, 100, 7, new Ack("part")));
            c.connection().tell(new WriteFile(file, 5, 0, new Ack("none")));
            c.connection().tell(new Write(ByteString.fromString("|tail"), new Ack("tail")));
            c.connection().tell(CloseCommand.CLOSE);
            byte[] got = readAll(s.getInputStream());
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.write("head|".getBytes());
            expected.write(content);
            expected.write(content, 100, 7);
            expected.write("|tail".getBytes());
            assertArrayEquals(expected.toByteArray(), got);
            for (String token : new String[] {"whole", "part", "none", "tail"}) {
                assertEquals(new Ack(token), handler.expectMessageClass(Ack.class));
            }
        }
        UringFiles.get(testKit.system()).close(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aHeaderGoesBeforeTheFileWhetherItIsSplicedOrReadAndSent() throws Exception {
        byte[] content = new byte[2 * CHUNK + 10];
        new Random(4).nextBytes(content);
        FileHandle file = open(Files.write(tmp.resolve("headed"), content));
        try (Client client = connect()) {
            TestProbe<Event> handler = client.handler();
            Connected c = client.connected();
            Socket s = client.socket();
            ByteString header = ByteString.fromString("HEADER\r\n");
            c.connection().tell(new WriteFile(header, file, 0, content.length, false, new Ack("spliced")));
            c.connection().tell(new WriteFile(header, file, 5, 100, false, new Ack("read")));
            c.connection().tell(new WriteFile(header, file, 0, 0, false, new Ack("header only")));
            c.connection().tell(CloseCommand.CLOSE);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.write(header.toArray());
            expected.write(content);
            expected.write(header.toArray());
            expected.write(content, 5, 100);
            expected.write(header.toArray());
            assertArrayEquals(expected.toByteArray(), readAll(s.getInputStream()));
            for (String token : new String[] {"spliced", "read", "header only"}) {
                assertEquals(new Ack(token), handler.expectMessageClass(Ack.class));
            }
        }
        UringFiles.get(testKit.system()).close(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aFileGivenToTheConnectionIsClosedWhetherSentRefusedLeftUnsentOrTooLate() throws Exception {
        Path path = Files.write(tmp.resolve("given"), new byte[3 * CHUNK]);
        Client client = connect();
        TestProbe<Event> handler = client.handler();
        Connected c = client.connected();
        OpenFds.Snapshot before = OpenFds.snapshot(OpenFds.Kind.under(tmp));
        FileHandle sent = open(path);
        FileHandle refused = open(path);
        FileHandle unsent = open(path);
        try (client) {
            Socket s = client.socket();
            c.connection().tell(new WriteFile(ByteString.emptyByteString(), sent, 0, 3 * CHUNK, true, new Ack("sent")));
            assertArrayEquals(new byte[3 * CHUNK], s.getInputStream().readNBytes(3 * CHUNK));
            assertEquals(new Ack("sent"), handler.expectMessageClass(Ack.class));
            c.connection().tell(new WriteFile(ByteString.emptyByteString(), refused, -1, 1, true, null));
            handler.expectMessageClass(CommandFailed.class);
            // Queued behind a write, then an abort before either completes: never sent, and closed all the same.
            c.connection().tell(Write.of(ByteString.fromArrayUnsafe(new byte[64 << 10])));
            c.connection().tell(new WriteFile(ByteString.emptyByteString(), unsent, 0, 3 * CHUNK, true, null));
            c.connection().tell(CloseCommand.ABORT);
            handler.expectMessageClass(TcpProtocol.Aborted.class, Duration.ofSeconds(10));
            // Sent by a handler not yet told that its connection has stopped: it reaches no one, and is closed.
            FileHandle late = open(path);
            testKit.createTestProbe().expectTerminated(c.connection(), Duration.ofSeconds(10));
            c.connection().tell(new WriteFile(ByteString.emptyByteString(), late, 0, 3 * CHUNK, true, null));
        }
        before.assertNoneNew("the four files closed");
    }

    @Test
    void aFileShorterThanPromisedFailsTheCommandAndClosesTheConnection() throws Exception {
        byte[] content = new byte[3 * CHUNK];
        Arrays.fill(content, (byte) 'x');
        Path path = Files.write(tmp.resolve("short"), content);
        FileHandle file = open(path);
        try (Client client = connect()) {
            TestProbe<Event> handler = client.handler();
            Connected c = client.connected();
            Socket s = client.socket();
            WriteFile promised = new WriteFile(file, 0, 5L * CHUNK, new Ack("never"));
            Write after = Write.of(ByteString.fromString("must not follow"));
            c.connection().tell(promised);
            c.connection().tell(after);
            CommandFailed failed = handler.expectMessageClass(CommandFailed.class, Duration.ofSeconds(10));
            assertEquals(promised, failed.command());
            assertInstanceOf(EOFException.class, failed.cause());
            assertTrue(failed.cause().getMessage().contains("ended at byte " + 3 * CHUNK), failed.cause().getMessage());
            // The write after it was taken and is dropped, or came when the close had begun and is refused.
            Event next = handler.receiveMessage(Duration.ofSeconds(10));
            if (next instanceof CommandFailed refused) {
                assertEquals(after, refused.command(), refused.toString());
                next = handler.receiveMessage(Duration.ofSeconds(10));
            }
            assertInstanceOf(ErrorClosed.class, next);
            assertArrayEquals(content, readAll(s.getInputStream()), "what the file had, and nothing after it");
        }
        UringFiles.get(testKit.system()).close(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aFileTruncatedWhileItIsSentEndsTheConnection() throws Exception {
        // 16 MiB: more than the socket buffers on both sides can take while the peer does not read, so the send
        // is still going when the file shrinks (a 1 MiB file could be sent whole first, and nothing would end).
        byte[] content = new byte[1024 * CHUNK];
        new Random(5).nextBytes(content);
        Path path = Files.write(tmp.resolve("shrinking"), content);
        FileHandle file = open(path);
        try (Client client = connect()) {
            TestProbe<Event> handler = client.handler();
            Connected c = client.connected();
            Socket s = client.socket();
            c.connection().tell(new WriteFile(file, 0, content.length, new Ack("never")));
            InputStream in = s.getInputStream();
            byte[] first = in.readNBytes(CHUNK); // the send has begun; the peer reads no more for now
            assertArrayEquals(Arrays.copyOf(content, CHUNK), first);
            try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw")) {
                raf.setLength(4 * CHUNK);
            }
            byte[] rest = readAll(in);
            assertTrue(CHUNK + rest.length < content.length, "the response was cut short: " + rest.length);
            handler.expectMessageClass(CommandFailed.class, Duration.ofSeconds(10));
            handler.expectMessageClass(ErrorClosed.class);
        }
        UringFiles.get(testKit.system()).close(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    @Tag("io-uring-only") // the kernel's workers and SPLICE are the ring's; the JDK backend reads and writes
    void peersThatStopReadingKeepNoKernelWorkerFromTheOthers() throws Exception {
        byte[] content = new byte[64 * CHUNK];
        new Random(6).nextBytes(content);
        FileHandle file = open(Files.write(tmp.resolve("wanted"), content));
        // Small buffers on both sides: a piece fills them, and its splice finds no room at once.
        TcpSocketOptions smallSendBuffer = TcpSocketOptions.of(List.of(TcpSO.sendBufferSize(4096)), Optional.empty());
        List<Client> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) { // twice the workers there are
                Client peer = connect(testKit, smallSendBuffer, 4096);
                stalled.add(peer);
                peer.connected().connection().tell(new WriteFile(file, 0, content.length, new Ack("never")));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            for (int i = 0; i < stalled.size(); i++) { // each one's download has begun, and it reads nothing
                while (stalled.get(i).socket().getInputStream().available() == 0) {
                    assertTrue(System.nanoTime() < deadline, "peer " + i + " got nothing in 10 s: its splices "
                            + "wait for a kernel worker that another peer holds");
                    Thread.onSpinWait();
                }
            }
            try (Client reader = connect()) {
                reader.connected().connection().tell(new WriteFile(file, 0, content.length, new Ack("whole")));
                assertArrayEquals(content, reader.socket().getInputStream().readNBytes(content.length));
                assertEquals(new Ack("whole"), reader.handler().expectMessageClass(Ack.class));
            }
            // A close while a piece waits for room cancels the wait; the connection closes as asked.
            stalled.get(0).connected().connection().tell(CloseCommand.ABORT);
            stalled.get(0).handler().expectMessageClass(TcpProtocol.Aborted.class, Duration.ofSeconds(10));
        } finally {
            for (Client peer : stalled) {
                peer.close();
            }
        }
        for (Client peer : stalled.subList(1, stalled.size())) { // a peer that resets: the wait ends in an error
            peer.handler().expectMessageClass(ErrorClosed.class, Duration.ofSeconds(10));
        }
        UringFiles.get(testKit.system()).close(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWriteFileOfAClosedFileIsRefusedAndTheConnectionGoesOn() throws Exception {
        FileHandle file = open(Files.write(tmp.resolve("closed"), new byte[100]));
        UringFiles.get(testKit.system()).close(file).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Client client = connect()) {
            TestProbe<Event> handler = client.handler();
            Connected c = client.connected();
            WriteFile stale = new WriteFile(file, 0, 100, new Ack("never"));
            c.connection().tell(stale);
            CommandFailed failed = handler.expectMessageClass(CommandFailed.class);
            assertEquals(stale, failed.command());
            assertInstanceOf(ClosedChannelException.class, failed.cause());
            c.connection().tell(new Write(ByteString.fromString("after"), new Ack("after")));
            assertEquals(new Ack("after"), handler.expectMessageClass(Ack.class));
            assertEquals("after", new String(client.socket().getInputStream().readNBytes(5),
                    java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aFileChunkLargerThanMaxIoSizeGoesOutWhole() throws Exception {
        ActorTestKit small = TestRings.kit("uring { rings = 1, buffers.max-io-size = 8 KiB, tcp.file-chunk = 64 KiB }");
        try {
            byte[] content = new byte[200 * 1024];
            new Random(7).nextBytes(content);
            FileHandle file = open(small, Files.write(tmp.resolve("chunky"), content));
            try (Client client = connect(small, TcpSocketOptions.DEFAULT, 0)) {
                client.connected().connection().tell(new WriteFile(file, 0, content.length, new Ack("whole")));
                assertArrayEquals(content, client.socket().getInputStream().readNBytes(content.length));
                assertEquals(new Ack("whole"), client.handler().expectMessageClass(Ack.class, Duration.ofSeconds(10)));
            }
        } finally {
            small.shutdownTestKit();
        }
    }
}
