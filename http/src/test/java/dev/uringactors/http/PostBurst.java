package dev.uringactors.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code count} connections opened at once, each POSTing a body of {@code length} bytes with {@code Connection:
 * close} and reading the answer to its end, all on one thread (non-blocking sockets): a burst as many clients
 * make it, without a thread per client. Each connection ends with the answer's text, or with what failed it.
 */
final class PostBurst {
    private PostBurst() {
    }

    /** One connection's outcome: the whole answer as text, or the failure (a reset, the deadline). */
    record Outcome(String answer, String failure) {
        boolean answered(String expectedBody) {
            return failure == null && answer.startsWith("HTTP/1.1 200 ") && answer.endsWith("\r\n\r\n" + expectedBody);
        }

        @Override
        public String toString() {
            return failure != null ? failure : answer.lines().findFirst().orElse("(empty answer)");
        }
    }

    private static final class Client {
        final SocketChannel channel;
        final ByteBuffer request;
        final StringBuilder answer = new StringBuilder();
        String failure;
        boolean done;

        Client(SocketChannel channel, ByteBuffer request) {
            this.channel = channel;
            this.request = request;
        }
    }

    static List<Outcome> post(InetSocketAddress server, String path, int count, int length, long timeoutMillis)
            throws IOException {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\n"
                + "Content-Length: " + length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        ByteBuffer request = ByteBuffer.allocateDirect(head.length + length).put(head);
        request.position(0).limit(head.length + length);
        ByteBuffer read = ByteBuffer.allocate(64 * 1024);
        List<Client> clients = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < count; i++) {
                SocketChannel channel = SocketChannel.open();
                channel.configureBlocking(false);
                Client client = new Client(channel, request.duplicate());
                clients.add(client);
                channel.connect(server);
                channel.register(selector, SelectionKey.OP_CONNECT, client);
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            int open = count;
            while (open > 0) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    break;
                }
                selector.select(left);
                for (SelectionKey key : selector.selectedKeys()) {
                    Client client = (Client) key.attachment();
                    try {
                        step(key, client, read);
                    } catch (IOException e) {
                        client.failure = e.toString();
                        client.done = true;
                    }
                    if (client.done) {
                        key.cancel();
                        client.channel.close();
                        open--;
                    }
                }
                selector.selectedKeys().clear();
            }
        } finally {
            for (Client client : clients) {
                if (!client.done) {
                    client.failure = "no answer by the deadline (" + client.request.remaining()
                            + " bytes of the request unsent)";
                    client.channel.close();
                }
            }
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (Client client : clients) {
            outcomes.add(new Outcome(client.answer.toString(), client.failure));
        }
        return outcomes;
    }

    private static void step(SelectionKey key, Client client, ByteBuffer read) throws IOException {
        if (key.isConnectable() && client.channel.finishConnect()) {
            key.interestOps(SelectionKey.OP_WRITE);
        }
        if (key.isValid() && key.isWritable()) {
            client.channel.write(client.request);
            if (!client.request.hasRemaining()) {
                key.interestOps(SelectionKey.OP_READ);
            }
        }
        if (key.isValid() && key.isReadable()) {
            read.clear();
            if (client.channel.read(read) < 0) {
                client.done = true;
            } else {
                client.answer.append(new String(read.array(), 0, read.position(), StandardCharsets.ISO_8859_1));
            }
        }
    }
}
