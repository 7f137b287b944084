package dev.uringactors.http;

import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathSingleSlash;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A connection whose handling stream fails is closed at once, not left open until the idle timeout (60 s): the
 * peer sees its end within a second.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailedStreamClosesTest {
    private static final long WITHIN_MILLIS = 1_000;
    private final ActorTestKit testKit = ActorTestKit.create();
    private ServerBinding binding;

    @BeforeAll
    void bind() throws Exception {
        Source<ByteString, ?> failing = Source.single(ByteString.fromString("first"))
                .concat(Source.failed(new IllegalStateException("the entity stream failed")));
        Route routes = concat(
                pathSingleSlash(() -> get(() -> complete("ok"))),
                path("fails", () -> get(() -> complete(HttpResponse.create().withEntity(
                        HttpEntities.createChunked(ContentTypes.APPLICATION_OCTET_STREAM, failing))))));
        binding = UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0).bind(routes)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aResponseWhoseEntityStreamFailsEndsTheConnectionAtOnce() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write("GET /fails HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String head = UringHttpTest.readHead(s.getInputStream());
            assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
            assertEndsWithinASecond(s);
        }
    }

    /** Reads what comes until the connection ends, which must be within a second of the last bytes. */
    private static void assertEndsWithinASecond(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        byte[] chunk = new byte[65536];
        long lastRead = System.nanoTime();
        try {
            while (in.read(chunk) >= 0) {
                lastRead = System.nanoTime();
            }
        } catch (SocketException reset) {
            assertTrue(String.valueOf(reset.getMessage()).contains("reset"), reset.toString());
        } catch (SocketTimeoutException stillOpen) {
            fail("the connection was still open " + s.getSoTimeout() + " ms after the last bytes came");
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastRead);
        assertTrue(millis < WITHIN_MILLIS, "ended " + millis + " ms after the last bytes came");
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", binding.localAddress().getPort());
        s.setSoTimeout(5_000);
        return s;
    }
}
