package dev.uringactors.bench;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Locale;

/**
 * The echo load where the C {@code echo_client} is not built: {@code conns} connections, each sending
 * {@code bytes} and waiting for them to come back, on one thread; prints the C client's line. It is slower than
 * the C client, so its figures are not comparable with the C figures, only with each other.
 */
public final class EchoClient {
    private EchoClient() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int conns = Integer.parseInt(args[1]);
        double warmup = Double.parseDouble(args[2]);
        double measure = Double.parseDouble(args[3]);
        int bytes = args.length > 4 ? Integer.parseInt(args[4]) : 64;
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < conns; i++) {
                SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                ch.socket().setTcpNoDelay(true);
                ch.configureBlocking(false);
                ByteBuffer buffer = ByteBuffer.allocateDirect(bytes);
                ch.write(buffer);
                buffer.clear();
                ch.register(selector, SelectionKey.OP_READ, buffer);
            }
            long start = System.nanoTime();
            long measureFrom = start + (long) (warmup * 1e9);
            long end = measureFrom + (long) (measure * 1e9);
            long roundTrips = 0;
            long atMeasureStart = -1;
            while (System.nanoTime() < end) {
                if (atMeasureStart < 0 && System.nanoTime() >= measureFrom) {
                    atMeasureStart = roundTrips;
                }
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    SocketChannel ch = (SocketChannel) key.channel();
                    ByteBuffer buffer = (ByteBuffer) key.attachment();
                    if (ch.read(buffer) < 0) {
                        throw new IllegalStateException("server closed a connection");
                    }
                    if (!buffer.hasRemaining()) {
                        roundTrips++;
                        buffer.flip();
                        ch.write(buffer);
                        buffer.clear();
                    }
                }
                selector.selectedKeys().clear();
            }
            long measured = roundTrips - Math.max(atMeasureStart, 0);
            double rate = measured / measure;
            System.out.printf(Locale.ROOT, "conns=%d msg=%d measure_s=%.2f roundtrips=%d rt_per_s=%.0f "
                    + "avg_rtt_us=%.1f%n", conns, bytes, measure, measured, rate, conns / rate * 1e6);
        }
    }
}
