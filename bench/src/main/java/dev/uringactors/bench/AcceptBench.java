package dev.uringactors.bench;

import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.UringTcp;
import dev.uringactors.bench.figures.FigureRecorder;
import dev.uringactors.ring.CompletionHandler;
import dev.uringactors.ring.CqeFlags;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.SetupFlag;
import dev.uringactors.ring.Sockets;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Accepting connections that wait in the kernel backlog, timed per batch as the C {@code accept_bench} does.
 * Two levels: the ring alone (one multishot ACCEPT on a SINGLE_ISSUER | DEFER_TASKRUN ring, the fds collected:
 * exactly the C program's work, so the two compare directly), and the whole stack (a pull-mode listener is
 * given credit for the batch, and the clock runs until the handler has a {@code Connected}, that is a
 * connection actor with its addresses, for each), multishot and single-shot.
 */
final class AcceptBench {
    private static final Pattern US = Pattern.compile("us_per_accept=([0-9.]+)");

    private AcceptBench() {
    }

    static void main(Args args) throws Exception {
        int count = args.intValue("count", 10_000);
        int batch = args.intValue("batch", 2000);
        String c = args.string("c-accept", "/tmp/uring-anchors/accept_bench");
        double cMultishot = Files.isExecutable(Path.of(c)) ? runC(c, "multishot", count, batch) : -1;
        double cSingle = cMultishot > 0 ? runC(c, "single_batch", count, batch) : -1;
        double ring = ringOnly(count, batch);
        double ours = measure("multishot", count, batch);
        double oursSingle = measure("single", count, batch);
        if (cMultishot > 0) {
            System.out.printf(Locale.ROOT, "accept c-multishot: %.2f us/accept, c-single-batch: %.2f us/accept%n",
                    cMultishot, cSingle);
            System.out.printf(Locale.ROOT, "ratio ring-multishot / c-multishot: %.2fx; stack-multishot / "
                    + "c-multishot: %.2fx%n", ring / cMultishot, ours / cMultishot);
        }
        System.out.printf(Locale.ROOT, "accept count=%d: ring-multishot %.2f us/accept, stack-multishot %.2f "
                + "us/accept, stack-single %.2f us/accept%n", count, ring, ours, oursSingle);
        FigureRecorder figures = args.figures("accept");
        if (cMultishot > 0) {
            figures.record("C multishot", "batch", batch, "us/accept", cMultishot);
            figures.record("C single", "batch", batch, "us/accept", cSingle);
        }
        figures.record("ring multishot", "batch", batch, "us/accept", ring);
        figures.record("stack multishot", "batch", batch, "us/accept", ours);
        figures.record("stack single", "batch", batch, "us/accept", oursSingle);
    }

    private static double measure(String mode, int count, int batch) throws Exception {
        try (BenchSystem bench = new BenchSystem("tcp.accept = " + mode)) {
            CountDownLatch[] arrived = {new CountDownLatch(0)};
            CountDownLatch[] closed = {new CountDownLatch(0)};
            List<ActorRef<TcpProtocol.ConnectionCommand>> connections = new ArrayList<>();
            TcpProtocol.Bound[] bound = {null};
            CountDownLatch isBound = new CountDownLatch(1);
            bench.spawnOnRing(Behaviors.<TcpProtocol.Event>setup(ctx -> {
                UringTcp.get(ctx.getSystem()).manager().tell(new TcpProtocol.Bind(ctx.getSelf(),
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096, true));
                return Behaviors.receiveMessage(e -> {
                    if (e instanceof TcpProtocol.Connected connected) {
                        connections.add(connected.connection());
                        arrived[0].countDown();
                    } else if (e instanceof TcpProtocol.ConnectionClosed) {
                        closed[0].countDown();
                    } else if (e instanceof TcpProtocol.Bound b) {
                        bound[0] = b;
                        isBound.countDown();
                    }
                    return Behaviors.same();
                });
            }), "accept-handler");
            isBound.await(10, TimeUnit.SECONDS);
            InetSocketAddress address = bound[0].localAddress();
            long nanos = 0;
            for (int done = -batch; done < count; done += batch) { // the first batch warms the JIT, untimed
                int b = Math.min(batch, count - Math.max(done, 0));
                List<Socket> clients = connectAll(address, b);
                arrived[0] = new CountDownLatch(b);
                long t0 = System.nanoTime();
                bound[0].listener().tell(new TcpProtocol.ResumeAccepting(b));
                if (!arrived[0].await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("only " + (b - arrived[0].getCount()) + " of " + b + " accepted");
                }
                if (done >= 0) {
                    nanos += System.nanoTime() - t0;
                }
                // Untimed, as in the C program: close both ends before the next batch.
                closed[0] = new CountDownLatch(b);
                connections.forEach(conn -> conn.tell(TcpProtocol.CloseCommand.ABORT));
                connections.clear();
                for (Socket s : clients) {
                    s.close();
                }
                if (!closed[0].await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(closed[0].getCount() + " connections did not close");
                }
            }
            return nanos / 1e3 / count;
        }
    }

    /** The ring alone: what the C program does, in Java. */
    private static double ringOnly(int count, int batch) throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        int listener = Sockets.listen(any, 4096, false);
        InetSocketAddress address = Sockets.localAddress(listener);
        int[] accepted = new int[batch];
        int[] got = {0};
        boolean[] armed = {false};
        try (Ring ring = Ring.open(RingOptions.defaults().withEntries(4096).withCqEntries(16384)
                .withFlags(SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN))) {
            CompletionHandler collect = (userData, res, flags) -> {
                if (res < 0) {
                    throw new IllegalStateException("accept failed: " + Errno.name(res));
                }
                accepted[got[0]++] = res;
                armed[0] &= !CqeFlags.isFinal(flags);
            };
            long nanos = 0;
            for (int done = -batch; done < count; done += batch) { // the first batch warms the JIT, untimed
                int b = Math.min(batch, count - Math.max(done, 0));
                List<Socket> clients = connectAll(address, b);
                got[0] = 0;
                long t0 = System.nanoTime();
                while (got[0] < b) {
                    if (!armed[0]) {
                        ring.nextSqe().prepMultishotAccept(listener, 0).userData(1);
                        armed[0] = true;
                    }
                    ring.submitAndWait(1);
                    ring.reap(collect);
                }
                if (done >= 0) {
                    nanos += System.nanoTime() - t0;
                }
                if (armed[0]) { // untimed, as in C: cancel the armed accept and wait for its end
                    ring.nextSqe().prepCancel(1, 0).userData(2);
                    while (armed[0]) {
                        ring.submitAndWait(1);
                        ring.reap((userData, res, flags) -> armed[0] &= !(userData == 1 && CqeFlags.isFinal(flags)));
                    }
                }
                for (Socket s : clients) {
                    s.close();
                }
                for (int i = 0; i < b; i++) {
                    Descriptors.close(accepted[i]);
                }
            }
            return nanos / 1e3 / count;
        } finally {
            Descriptors.close(listener);
        }
    }

    private static List<Socket> connectAll(InetSocketAddress address, int n) throws Exception {
        List<Socket> clients = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Socket s = new Socket();
            s.setSoLinger(true, 0);
            s.connect(address);
            clients.add(s);
        }
        Thread.sleep(20); // as the C program: let the last handshakes land in the accept queue
        return clients;
    }

    private static double runC(String program, String mode, int count, int batch) throws Exception {
        Process p = new ProcessBuilder(program, mode, String.valueOf(count), String.valueOf(batch))
                .redirectErrorStream(true).start();
        String out;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            out = r.lines().collect(Collectors.joining("\n"));
        }
        Matcher m = US.matcher(out);
        if (p.waitFor() != 0 || !m.find()) {
            throw new IllegalStateException(program + " failed: " + out);
        }
        return Double.parseDouble(m.group(1));
    }
}
