package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Ten thousand small requests pipelined at once. Pekko HTTP's parser recurses once per request in what one read
 * brings (about 1.7 KiB of stack each): a 16 KiB read of them needs more stack than a JVM thread's usual 1 MiB.
 * A ring thread has {@code uring.dispatcher.thread-stack-size} (16 MiB), so all are answered. Where the stack is
 * made too small for them, the StackOverflowError ends that connection at once and nothing else: it must not
 * break the parser's classes for the JVM (before, it could fail the first initialization of the exception the
 * parser throws where a read ends mid-request, and from then on every malformed or split request in the JVM had
 * its connection closed without an answer).
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PipelinedFloodTest {
    private static final int REQUESTS = 10_000;
    private static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final String ANSWER = "HTTP/1.1 200 OK";

    private final ActorTestKit defaults = ActorTestKit.create();
    // Reads of up to 64 KiB (2,400 of these requests): with 16 KiB ones, once the JIT had compiled the parser (as
    // the tests run before this one in the module's JVM do), its smaller frames let a read's 600 requests fit in
    // 256 KiB, and a clean-clone CI run saw none of five floods overflow.
    private final ActorTestKit smallStack = ActorTestKit.create(ConfigFactory.parseString(
            "uring { rings = 1, dispatcher.thread-stack-size = 256 KiB, tcp.recv-buffer-size = 64 KiB }")
            .withFallback(ConfigFactory.load()));

    @AfterAll
    void shutDown() {
        defaults.shutdownTestKit();
        smallStack.shutdownTestKit();
    }

    @Test
    void tenThousandPipelinedRequestsAreAllAnswered() throws Exception {
        ServerBinding binding = bind(defaults);
        try (Socket s = connect(binding)) {
            Thread writer = pipelineAll(s);
            int answers = readAnswers(s.getInputStream(), REQUESTS);
            writer.join(10_000);
            assertEquals(REQUESTS, answers, "answers before the connection ended");
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aStackTooSmallForThemEndsOnlyTheirConnection() throws Exception {
        ServerBinding binding = bind(smallStack);
        try {
            // The overflow needs reads that bring a few hundred requests at once: a server that reads faster than
            // the client writes may see them in smaller pieces, so the flood is sent again until one overflows.
            int answers = REQUESTS;
            for (int attempt = 0; attempt < 5 && answers == REQUESTS; attempt++) {
                try (Socket s = connect(binding)) {
                    Thread writer = pipelineAll(s);
                    answers = readAnswers(s.getInputStream(), REQUESTS);
                    writer.join(10_000);
                }
            }
            assertTrue(answers < REQUESTS, "the connection ended early in one of 5 floods: " + answers + " answers");
            for (int i = 0; i < 3; i++) {
                try (Socket s = connect(binding)) {
                    s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    assertTrue(response.startsWith("HTTP/1.1 400 Bad Request"), "malformed request " + i + ": "
                            + response);
                }
                try (Socket s = connect(binding)) {
                    s.getOutputStream().write(REQUEST);
                    String head = UringHttpTest.readHead(s.getInputStream());
                    assertTrue(head.startsWith(ANSWER), "request " + i + ": " + head);
                }
            }
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static ServerBinding bind(ActorTestKit testKit) throws Exception {
        return UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bind(TestRoutes.routes(CompletableFuture::new))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Socket connect(ServerBinding binding) throws IOException {
        Socket s = new Socket("127.0.0.1", binding.localAddress().getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    /** Writes all the requests in one go, from a thread of its own (the answers come meanwhile). */
    private static Thread pipelineAll(Socket s) {
        byte[] all = new byte[REQUEST.length * REQUESTS];
        for (int i = 0; i < REQUESTS; i++) {
            System.arraycopy(REQUEST, 0, all, i * REQUEST.length, REQUEST.length);
        }
        Thread writer = new Thread(() -> {
            try {
                s.getOutputStream().write(all);
            } catch (IOException e) {
                // the server ended the connection before taking it all
            }
        });
        writer.start();
        return writer;
    }

    /**
     * Reads answers until {@code expected} have come or the connection ends (by the server's close or its reset),
     * and says how many came; fails if nothing comes for 10 s before either.
     */
    private static int readAnswers(InputStream in, int expected) throws IOException {
        byte[] chunk = new byte[65536];
        String tail = "";
        int answers = 0;
        try {
            for (int n; answers < expected && (n = in.read(chunk)) >= 0; ) {
                String seen = tail + new String(chunk, 0, n, StandardCharsets.ISO_8859_1);
                answers += count(seen, ANSWER);
                tail = seen.substring(Math.max(0, seen.length() - (ANSWER.length() - 1)));
            }
        } catch (SocketException reset) {
            assertTrue(String.valueOf(reset.getMessage()).contains("reset"), reset.toString());
        } catch (SocketTimeoutException silent) {
            fail("nothing came for 10 s, after " + answers + " answers");
        }
        return answers;
    }

    private static int count(String in, String what) {
        int n = 0;
        for (int at = in.indexOf(what); at >= 0; at = in.indexOf(what, at + what.length())) {
            n++;
        }
        return n;
    }
}
