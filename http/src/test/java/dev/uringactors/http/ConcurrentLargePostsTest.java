package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Three hundred 1 MiB JSON documents POSTed at once to an echo route on two rings: every answer is whole and
 * every byte is the one sent. The bodies are made and checked as they stream, so the client holds none whole.
 * (How long it takes and what the server holds, against Pekko's own TCP, is the bench's {@code pekko-http-post}:
 * here the server shares the JVM with the client.)
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrentLargePostsTest {
    private static final int REQUESTS = 300;
    private static final int LENGTH = 1 << 20;
    /**
     * Time-outs for a machine that may be shared: on a CPU loaded many times over (this test met a load of 20 on two
     * cores), a ring that carries 300 MiB each way can take longer than the default 5 s register-timeout to start
     * a new connection's stream, and the connection is then closed unanswered (the client sees a reset).
     */
    private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString("uring.rings = 2, "
            + "uring.tcp.register-timeout = 1m, pekko.http.server { request-timeout = 2m, idle-timeout = 2m }")
            .withFallback(ConfigFactory.load()));

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void threeHundredConcurrentOneMebibyteJsonPostsAreEchoedIntact() throws Exception {
        ServerBinding binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bind(TestRoutes.routes(CompletableFuture::new))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        ExecutorService clientThreads = Executors.newFixedThreadPool(4);
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .executor(clientThreads).build();
            URI echo = URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + "/echo");
            long start = System.nanoTime();
            List<CompletableFuture<String>> answers = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                JsonDocument document = new JsonDocument(i, LENGTH);
                EchoCheck check = new EchoCheck(document);
                answers.add(client.sendAsync(HttpRequest.newBuilder(echo)
                                .timeout(Duration.ofMinutes(2))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.fromPublisher(
                                        HttpRequest.BodyPublishers.ofInputStream(document::stream), LENGTH))
                                .build(), HttpResponse.BodyHandlers.ofByteArrayConsumer(check))
                        .thenApply(response -> response.statusCode() + " " + check.verdict()));
            }
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(3, TimeUnit.MINUTES);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            for (int i = 0; i < REQUESTS; i++) {
                assertEquals("200 intact", answers.get(i).get(), "request " + i);
            }
            System.out.printf("%d concurrent 1 MiB JSON POSTs echoed on the rings in %d ms%n", REQUESTS, millis);
        } finally {
            clientThreads.shutdownNow();
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A compact JSON document of exactly {@code length} bytes, {@code {"id":N,"pad":"..."}}, whose padding depends
     * on {@code id} and the position: any byte can be computed, so none needs keeping.
     */
    private static final class JsonDocument {
        private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        private final int id;
        private final int length;
        private final byte[] head;

        JsonDocument(int id, int length) {
            this.id = id;
            this.length = length;
            this.head = ("{\"id\":" + id + ",\"pad\":\"").getBytes(StandardCharsets.US_ASCII);
        }

        int length() {
            return length;
        }

        byte at(int position) {
            if (position < head.length) {
                return head[position];
            }
            if (position >= length - 2) {
                return position == length - 2 ? (byte) '"' : (byte) '}';
            }
            return DIGITS[(position * 31 + id * 7 + (position >>> 10)) & 15];
        }

        InputStream stream() {
            return new InputStream() {
                private int position;

                @Override
                public int read() {
                    return position < length ? at(position++) & 0xff : -1;
                }

                @Override
                public int read(byte[] into, int offset, int count) {
                    if (position >= length) {
                        return -1;
                    }
                    int n = Math.min(count, length - position);
                    for (int i = 0; i < n; i++) {
                        into[offset + i] = at(position++);
                    }
                    return n;
                }
            };
        }
    }

    /** Compares an answer's body, as it arrives, with the document sent. */
    private static final class EchoCheck implements java.util.function.Consumer<Optional<byte[]>> {
        private final JsonDocument sent;
        private int position;
        private String mismatch;
        private boolean ended;

        EchoCheck(JsonDocument sent) {
            this.sent = sent;
        }

        @Override
        public void accept(Optional<byte[]> chunk) {
            if (chunk.isEmpty()) {
                ended = true;
                return;
            }
            for (byte b : chunk.get()) {
                if (mismatch == null && (position >= sent.length() || b != sent.at(position))) {
                    mismatch = "byte " + position + " differs: "
                            + new String(new byte[] {b}, StandardCharsets.ISO_8859_1);
                }
                position++;
            }
        }

        String verdict() {
            if (mismatch != null) {
                return mismatch;
            }
            return ended && position == sent.length() ? "intact" : "ended after " + position + " bytes";
        }
    }
}
