package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A client pipelines its requests, then shuts down its sending side (half-close) and reads. The server answers
 * them all, then closes the connection: the client sees the end of the stream long before the idle timeout (60 s
 * here). Pekko HTTP's own transport does so; the rings must too. Pekko HTTP leaves such a connection open when the
 * end of its input reaches it while its output is held back (its controller then completes its rendering outlet
 * twice behind a pending emission, which Pekko Streams never completes): the ring TCP stage used to hold it back
 * after 16 small answers awaiting acknowledgement, where Pekko's own takes up to its write buffer's bytes.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class HalfClosedPipelineTest {
    private static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final String ANSWER = "HTTP/1.1 200 OK";
    private static final int CLOSE_WITHIN_MILLIS = 5_000;

    private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString(
            "pekko.http.server.idle-timeout = 60 s").withFallback(ConfigFactory.load()));

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 20, 100})
    void theServerClosesAfterTheLastAnswer(int requests) throws Exception {
        answersAllThenCloses(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0), requests);
    }

    /**
     * 27 KB of requests, 144 KB of answers: on threads with the stack that Pekko HTTP's parser needs for a read of
     * many pipelined requests, the rings' or under the JDK backend uring.jdk.http-dispatcher's
     * ({@link PipelinedFloodTest}).
     */
    @Test
    void aThousandRequestsToo() throws Exception {
        answersAllThenCloses(UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0), 1000);
    }

    /** Not 1000: Pekko HTTP's parser recursion for them overflows a default dispatcher thread's stack. */
    @ParameterizedTest
    @ValueSource(ints = {1, 3, 20, 100})
    void pekkoHttpsOwnTransportDoesTheSame(int requests) throws Exception {
        answersAllThenCloses(Http.get(testKit.system()).newServerAt("127.0.0.1", 0), requests);
    }

    private void answersAllThenCloses(ServerBuilder server, int requests) throws Exception {
        ServerBinding binding = server.bind(TestRoutes.routes(CompletableFuture::new))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
            try (Socket s = new Socket("127.0.0.1", binding.localAddress().getPort())) {
                s.setSoTimeout(CLOSE_WITHIN_MILLIS);
                s.getOutputStream().write(pipelined(requests));
                s.shutdownOutput();
                assertEquals(requests, answersUntilEndOfStream(s.getInputStream()), "answers before the close");
            }
            sockets.assertNoneNew("sockets left open");
        } finally {
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static byte[] pipelined(int n) {
        byte[] all = new byte[REQUEST.length * n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(REQUEST, 0, all, i * REQUEST.length, REQUEST.length);
        }
        return all;
    }

    /** Counts the answers until the server closes; fails if it has not within {@link #CLOSE_WITHIN_MILLIS}. */
    private static int answersUntilEndOfStream(InputStream in) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WITHIN_MILLIS);
        byte[] chunk = new byte[65536];
        StringBuilder all = new StringBuilder();
        try {
            for (int n; (n = in.read(chunk)) >= 0; ) {
                all.append(new String(chunk, 0, n, StandardCharsets.ISO_8859_1));
                if (System.nanoTime() > deadline) {
                    break;
                }
            }
        } catch (SocketTimeoutException silent) {
            // counted below
        }
        int answers = count(all, ANSWER);
        if (System.nanoTime() > deadline) {
            fail("the server had not closed " + CLOSE_WITHIN_MILLIS + " ms after the half-close, " + answers
                    + " answers in");
        }
        return answers;
    }

    private static int count(CharSequence in, String what) {
        String s = in.toString();
        int n = 0;
        for (int at = s.indexOf(what); at >= 0; at = s.indexOf(what, at + what.length())) {
            n++;
        }
        return n;
    }
}
