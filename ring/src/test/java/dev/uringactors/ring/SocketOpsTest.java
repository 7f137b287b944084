package dev.uringactors.ring;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@ExtendWith(RequiresIoUring.class)
class SocketOpsTest {
    static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    Ring ring;
    int listener;
    InetSocketAddress bound;

    @BeforeEach
    void listen() {
        ring = Ring.open(64, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
        listener = Sockets.listen(ANY_LOOPBACK, 128, false);
        bound = Sockets.localAddress(listener);
    }

    @AfterEach
    void close() {
        ring.close();
        Descriptors.close(listener);
    }

    private int acceptOne() {
        ring.nextSqe().prepAccept(listener, 0, 0, OpFlags.SOCK_CLOEXEC).userData(1);
        int fd = Reaped.await(ring, 1).byUserData(1).res();
        assertTrue(fd >= 0, Errno.name(fd));
        return fd;
    }

    @Test
    void echoThroughSocketConnectMultishotAcceptAndMultishotRecv() {
        try (BufferRing buffers = BufferRing.register(ring, 7, 8, 4096);
             NativeBuffer sockaddr = NativeBuffer.allocate(Sockets.SOCKADDR_SIZE);
             NativeBuffer out = NativeBuffer.ofString("hello, ring");
             NativeBuffer in = NativeBuffer.allocate(64)) {
            ring.nextSqe().prepMultishotAccept(listener, OpFlags.SOCK_CLOEXEC).userData(1);
            ring.nextSqe().prepSocket(Sockets.AF_INET, Sockets.SOCK_STREAM, 0, 0).userData(2);
            Reaped r = Reaped.await(ring, 1);
            int client = r.byUserData(2).res();
            assertTrue(client >= 0, Errno.name(client));

            int len = Sockets.encode(bound, sockaddr);
            ring.nextSqe().prepConnect(client, sockaddr.address(), len).userData(3);
            r.awaitMore(ring, 2);
            assertEquals(0, r.byUserData(3).res());
            Reaped.Cqe accepted = r.byUserData(1);
            assertTrue(accepted.res() >= 0 && (accepted.flags() & CqeFlags.F_MORE) != 0, "still armed: " + accepted);
            int server = accepted.res();

            ring.nextSqe().prepRecvMultishot(server, buffers.group(), 0).userData(4);
            ring.nextSqe().prepSend(client, out.address(), 11, OpFlags.MSG_NOSIGNAL).userData(5);
            r.awaitMore(ring, 2);
            assertEquals(11, r.byUserData(5).res());
            Reaped.Cqe received = r.byUserData(4);
            assertEquals(11, received.res());
            assertTrue((received.flags() & CqeFlags.F_BUFFER) != 0 && (received.flags() & CqeFlags.F_MORE) != 0);
            assertEquals("hello, ring", new String(buffers.take(received.flags(), 11), StandardCharsets.UTF_8));

            ring.nextSqe().prepSend(server, buffers.address(CqeFlags.bufferId(received.flags())), 0,
                    OpFlags.MSG_NOSIGNAL).userData(6); // a zero-length send is fine
            ring.nextSqe().prepSend(server, out.address(), 11, OpFlags.MSG_NOSIGNAL).userData(7);
            ring.nextSqe().prepRecv(client, in.address(), 64, 0).userData(8);
            r.awaitMore(ring, 3);
            assertEquals(11, r.byUserData(8).res());

            ring.nextSqe().prepShutdown(client, OpFlags.SHUT_WR).userData(9);
            r.awaitMore(ring, 2); // the shutdown, and the server's recv of 0 (end of its multishot)
            assertEquals(0, r.byUserData(9).res());
            assertTrue(r.cqes.stream().anyMatch(c -> c.userData() == 4 && c.res() == 0
                    && CqeFlags.isFinal(c.flags())), "peer closed ends the multishot recv: " + r.cqes);
            ring.nextSqe().prepClose(server).userData(10);
            ring.nextSqe().prepClose(client).userData(11);
            ring.nextSqe().prepCancel(1, 0).userData(12);
            r.awaitMore(ring, 4); // two closes, the cancel, and the accept's final CQE
        }
    }

    @Test
    void connectToAClosedPortIsRefused() {
        int probe = Sockets.listen(ANY_LOOPBACK, 1, false);
        InetSocketAddress free = Sockets.localAddress(probe);
        Descriptors.close(probe);
        try (NativeBuffer sockaddr = NativeBuffer.allocate(Sockets.SOCKADDR_SIZE)) {
            int fd = Sockets.tcpSocket(free);
            ring.nextSqe().prepConnect(fd, sockaddr.address(), Sockets.encode(free, sockaddr)).userData(1);
            int res = Reaped.await(ring, 1).byUserData(1).res();
            assertEquals(-Errno.ECONNREFUSED, res);
            UringException e = UringException.ofResult(Opcode.CONNECT, res, free.toString(), ring.setupFlags());
            assertEquals("ECONNREFUSED", e.errnoName());
            Descriptors.close(fd);
        }
    }

    @Test
    void oneMultishotAcceptTakesAHundredConnections() throws Exception {
        ring.nextSqe().prepMultishotAccept(listener, OpFlags.SOCK_CLOEXEC).userData(1);
        ring.submit();
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                clients.add(new Socket(bound.getAddress(), bound.getPort()));
            }
            Reaped r = Reaped.await(ring, 100);
            Set<Integer> fds = new HashSet<>();
            for (Reaped.Cqe c : r.cqes) {
                assertTrue(c.res() >= 0 && (c.flags() & CqeFlags.F_MORE) != 0, c.toString());
                fds.add(c.res());
            }
            assertEquals(100, fds.size());
            assertEquals(1, ring.inFlight(), "one request for a hundred connections");
            fds.forEach(Descriptors::close);
        } finally {
            for (Socket s : clients) {
                s.close();
            }
        }
    }

    @Test
    void multishotRecvEndsWithEnobufsWhenBuffersRunOutAndResumesAfterRecycling() throws Exception {
        try (Socket client = new Socket(bound.getAddress(), bound.getPort());
             BufferRing buffers = BufferRing.register(ring, 3, 2, 16, false)) { // whole buffers: 2 receives
            int server = acceptOne();
            OutputStream out = client.getOutputStream();
            ring.nextSqe().prepRecvMultishot(server, 3, 0).userData(2);
            ring.submit();
            Reaped r = new Reaped();
            for (int i = 0; i < 3; i++) {
                out.write(new byte[] {(byte) i});
                out.flush();
                r.awaitMore(ring, 1);
            }
            Reaped.Cqe last = r.cqes.get(2);
            assertEquals(-Errno.ENOBUFS, last.res(), r.cqes.toString());
            assertTrue(CqeFlags.isFinal(last.flags()));
            r.cqes.subList(0, 2).forEach(c -> buffers.take(c.flags(), c.res()));
            ring.nextSqe().prepRecvMultishot(server, 3, 0).userData(3);
            Reaped.Cqe resumed = r.awaitMore(ring, 1).byUserData(3);
            assertEquals(1, resumed.res(), "the byte that found no buffer is still there");
            assertEquals(2, buffers.take(resumed.flags(), 1)[0]);
            // Closing the fd would not end the multishot recv (it holds the file): cancel it first.
            ring.nextSqe().prepCancel(3, 0).userData(4);
            r.awaitMore(ring, 2);
            assertTrue(r.cqes.stream().anyMatch(c -> c.userData() == 3 && c.res() == -Errno.ECANCELED), r.cqes
                    .toString());
            ring.nextSqe().prepClose(server).userData(5);
            r.awaitMore(ring, 1);
        }
    }

    @Test
    void multishotRecvWithALimitEndsOnceItHasReceivedThatMuchAndLeavesTheRestInTheSocket() throws Exception {
        assumeTrue(KernelFacts.atLeast(6, 17),
                "a multishot recv's limit needs Linux 6.17, this is " + KernelFacts.release());
        byte[] sent = new byte[48 << 10];
        new Random(5).nextBytes(sent);
        try (Socket client = new Socket(bound.getAddress(), bound.getPort());
             BufferRing buffers = BufferRing.register(ring, 5, 8, 16 << 10, false)) {
            int server = acceptOne();
            client.getOutputStream().write(sent); // fits the socket's buffers: all there before the recv
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            Reaped r = new Reaped();
            ring.nextSqe().prepRecvMultishot(server, 5, 0, 20_000).userData(2);
            while (r.cqes.isEmpty() || !CqeFlags.isFinal(r.cqes.get(r.cqes.size() - 1).flags())) {
                r.awaitMore(ring, 1);
            }
            for (Reaped.Cqe c : r.cqes) {
                assertTrue(c.res() > 0, "data until the limit: " + r.cqes);
                received.write(buffers.take(c.flags(), c.res()));
            }
            // A receive takes a whole buffer: it ends at the first that reaches the limit.
            assertTrue(received.size() >= 20_000 && received.size() < 20_000 + (16 << 10),
                    "ends at its limit, with data: " + r.cqes);

            ring.nextSqe().prepRecvMultishot(server, 5, 0).userData(3);
            int seen = r.cqes.size();
            while (received.size() < sent.length) {
                r.awaitMore(ring, 1);
                for (Reaped.Cqe c : r.cqes.subList(seen, r.cqes.size())) {
                    assertTrue(c.userData() == 3 && c.res() > 0, r.cqes.toString());
                    received.write(buffers.take(c.flags(), c.res()));
                }
                seen = r.cqes.size();
            }
            assertArrayEquals(sent, received.toByteArray(), "the rest was left in the socket, in order");
            ring.nextSqe().prepCancel(3, 0).userData(4);
            r.awaitMore(ring, 2);
            Descriptors.close(server);
        }
    }

    @Test
    void incrementalBufferRingSharesOneBufferAcrossSmallReceives() throws Exception {
        assumeTrue(KernelFacts.atLeast(6, 12),
                "incremental buffer rings need Linux 6.12, this is " + KernelFacts.release());
        try (Socket client = new Socket(bound.getAddress(), bound.getPort());
             BufferRing buffers = BufferRing.register(ring, 4, 1, 64)) {
            assertTrue(buffers.incremental(), "registered incremental on Linux " + KernelFacts.release());
            int server = acceptOne();
            ring.nextSqe().prepRecvMultishot(server, 4, 0).userData(2);
            ring.submit();
            Reaped r = new Reaped();
            StringBuilder received = new StringBuilder();
            for (String piece : List.of("one;", "two;", "three;")) {
                client.getOutputStream().write(piece.getBytes(StandardCharsets.US_ASCII));
                Reaped.Cqe c = r.awaitMore(ring, 1).cqes.get(r.cqes.size() - 1);
                assertEquals(0, CqeFlags.bufferId(c.flags()), "the only buffer, shared");
                assertTrue((c.flags() & CqeFlags.F_BUF_MORE) != 0, "the kernel keeps filling it: " + c);
                received.append(new String(buffers.take(c.flags(), c.res()), StandardCharsets.US_ASCII));
            }
            assertEquals("one;two;three;", received.toString());
            ring.nextSqe().prepCancel(2, 0).userData(3);
            r.awaitMore(ring, 2);
            Descriptors.close(server);
        }
    }

    @Test
    void acceptIntoDirectDescriptorsAndReadThroughTheSlot() throws Exception {
        ring.registerFiles(-1, -1, -1, -1);
        try (Socket client = new Socket(bound.getAddress(), bound.getPort());
             NativeBuffer in = NativeBuffer.allocate(16)) {
            ring.nextSqe().prepMultishotAcceptDirect(listener, 0).userData(1);
            int slot = Reaped.await(ring, 1).byUserData(1).res();
            assertTrue(slot >= 0 && slot < 4, "slot " + slot);
            client.getOutputStream().write("direct".getBytes(StandardCharsets.US_ASCII));
            ring.nextSqe().prepRecv(slot, in.address(), 16, 0).flags(SqeFlags.FIXED_FILE).userData(2);
            assertEquals(6, Reaped.await(ring, 1).byUserData(2).res());
            ring.nextSqe().prepCloseDirect(slot).userData(3);
            ring.nextSqe().prepCancel(1, 0).userData(4);
            Reaped.await(ring, 3);
        }
    }

    @Test
    void zeroCopySendPostsTheResultThenTheNotification() throws Exception {
        try (Socket client = new Socket(bound.getAddress(), bound.getPort());
             NativeBuffer data = NativeBuffer.allocate(65536)) {
            int server = acceptOne();
            byte[] pattern = new byte[65536];
            for (int i = 0; i < pattern.length; i++) {
                pattern[i] = (byte) (i * 7);
            }
            data.write(0, pattern, 0, pattern.length);
            ring.nextSqe().prepSendZc(server, data.address(), 65536, OpFlags.MSG_NOSIGNAL, 0).userData(2);
            Reaped r = Reaped.await(ring, 2);
            assertEquals(65536, r.cqes.get(0).res());
            assertTrue((r.cqes.get(0).flags() & CqeFlags.F_MORE) != 0);
            assertTrue((r.cqes.get(1).flags() & CqeFlags.F_NOTIF) != 0, r.cqes.toString());
            InputStream in = client.getInputStream();
            assertArrayEquals(pattern, in.readNBytes(65536));
            Descriptors.close(server);
        }
    }

    @Test
    void sendmsgGathersTwoBuffersIntoOneMessage() throws Exception {
        try (Socket client = new Socket(bound.getAddress(), bound.getPort());
             NativeBuffer a = NativeBuffer.ofString("send");
             NativeBuffer b = NativeBuffer.ofString("msg");
             NativeBuffer iov = NativeBuffer.allocate(32);
             NativeBuffer msghdr = NativeBuffer.allocate(56)) {
            int server = acceptOne();
            iov.putLong(0, a.address());
            iov.putLong(8, 4);
            iov.putLong(16, b.address());
            iov.putLong(24, 3);
            msghdr.putLong(16, iov.address()); // struct msghdr: msg_iov @16, msg_iovlen @24; no name, no control
            msghdr.putLong(24, 2);
            ring.nextSqe().prepSendmsg(server, msghdr.address(), OpFlags.MSG_NOSIGNAL).userData(2);
            assertEquals(7, Reaped.await(ring, 1).byUserData(2).res());
            assertEquals("sendmsg", new String(client.getInputStream().readNBytes(7), StandardCharsets.US_ASCII));
            Descriptors.close(server);
        }
    }

    @Test
    void aSpliceIntoAFullNonBlockingSocketFailsWithEagainAndPollOutSaysWhenToGoOn() throws Exception {
        int piece = 4096;
        try (Socket client = new Socket(); Pipe pipe = new Pipe(); NativeBuffer bytes = NativeBuffer.allocate(piece)) {
            client.setReceiveBufferSize(piece); // small buffers on both sides: they fill after a few pieces
            client.connect(bound);
            client.setSoTimeout(10_000);
            ring.nextSqe().prepAccept(listener, 0, 0, OpFlags.SOCK_CLOEXEC | Sockets.SOCK_NONBLOCK).userData(1);
            int server = Reaped.await(ring, 1).byUserData(1).res();
            assertTrue(server >= 0, Errno.name(server));
            Sockets.setOption(server, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF, piece);
            int spliced;
            int pieces = 0;
            do { // the peer reads nothing: in the end the socket has no room, and the splice says so at once
                assertTrue(pieces++ < 1000, "the socket buffers filled");
                assertEquals(piece, LibC.write(pipe.writeFd, bytes.address(), piece));
                ring.nextSqe().prepSplice(pipe.readFd, -1, server, -1, piece, 0).userData(2);
                spliced = Reaped.await(ring, 1).byUserData(2).res();
            } while (spliced > 0);
            assertEquals(-Errno.EAGAIN, spliced, "a splice into a full non-blocking socket holds no worker");

            ring.nextSqe().prepPollAdd(server, OpFlags.POLLOUT).userData(3);
            ring.submit();
            assertEquals(0, ring.pollCompletions(), "no room yet");
            InputStream in = client.getInputStream();
            Reaped r = new Reaped();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (r.cqes.isEmpty()) { // the peer reads on: room comes back
                assertTrue(System.nanoTime() < deadline, "POLLOUT came within 10 s of the peer reading");
                in.readNBytes(Math.max(1, in.available()));
                ring.pollCompletions();
                ring.reap(r);
            }
            assertTrue((r.byUserData(3).res() & OpFlags.POLLOUT) != 0, r.cqes.toString());
            Descriptors.close(server);
        }
    }

    @Test
    void socketOptionsAreSetAndRead() {
        int fd = Sockets.tcpSocket(ANY_LOOPBACK);
        Sockets.setOption(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
        assertEquals(1, Sockets.option(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY));
        Sockets.setOption(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, 65536);
        assertTrue(Sockets.option(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF) >= 65536);
        Descriptors.close(fd);
    }

    @Test
    void bindingATakenPortSaysWhy() {
        UringException e = org.junit.jupiter.api.Assertions.assertThrows(UringException.class,
                () -> Sockets.listen(bound, 1, false));
        assertEquals("EADDRINUSE", e.errnoName());
        assertTrue(e.getMessage().contains("already listens"), e.getMessage());
    }

    @Test
    void ipv6AddressesRoundTrip() {
        InetSocketAddress v6 = new InetSocketAddress("::1", 4242);
        try (NativeBuffer b = NativeBuffer.allocate(Sockets.SOCKADDR_SIZE)) {
            assertEquals(28, Sockets.encode(v6, b));
            assertEquals(v6, Sockets.decode(b));
        }
    }
}
