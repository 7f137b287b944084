package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A rapid-reset client (CVE-2023-44487) in raw HTTP/2 frames: the preface, SETTINGS, then three hundred streams each
 * opened (HEADERS) and reset at once (RST_STREAM), then a PING. With {@code uring.http.http2-resets-per-second}
 * below that, the server closes the connection before it answers the PING, and serves a well-behaved client all
 * the same; with it 0 (Pekko HTTP's own default: no throttle) the PING is answered.
 */
@ExtendWith(RequiresIoUring.class)
@BothBackends
class Http2RapidResetTest {
    private static final int STREAMS = 300;
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADERS = 1;
    private static final int RST_STREAM = 3;
    private static final int SETTINGS = 4;
    private static final int PING = 6;

    @Test
    void aRapidResetClientIsCutOffAndOthersAreServed() throws Exception {
        ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString("pekko.http.server.enable-http2 = on, "
                + "uring.http.http2-resets-per-second = 100").withFallback(ConfigFactory.load()));
        try {
            int port = bind(testKit).localAddress().getPort();
            assertEquals("closed by the server", rapidResets(port));
            try (H2Client client = H2Client.connect(H2Client.Mode.PRIOR_KNOWLEDGE, port, null)) {
                assertEquals(TestRoutes.HELLO, client.get("/").get(10, TimeUnit.SECONDS).text());
            }
        } finally {
            testKit.shutdownTestKit();
        }
    }

    @Test
    void withTheThrottleOffTheyAreServedAsByPekkoHttp() throws Exception {
        ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString("pekko.http.server.enable-http2 = on, "
                + "uring.http.http2-resets-per-second = 0").withFallback(ConfigFactory.load()));
        try {
            assertEquals("PING answered", rapidResets(bind(testKit).localAddress().getPort()));
        } finally {
            testKit.shutdownTestKit();
        }
    }

    private static ServerBinding bind(ActorTestKit testKit) throws Exception {
        return UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0)
                .bind(TestRoutes.routes(CompletableFuture::new))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Sends the resets and a PING, then reads until the PING's answer or the connection's end: which came. */
    private static String rapidResets(int port) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(20_000);
            ByteArrayOutputStream frames = new ByteArrayOutputStream();
            frames.write(PREFACE);
            frame(frames, SETTINGS, 0, 0, new byte[0]);
            // GET / on http://localhost: :method GET, :scheme http, :path / from the static table, :authority literal.
            byte[] block = {(byte) 0x82, (byte) 0x86, (byte) 0x84, 0x01, 9,
                    'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't'};
            for (int i = 0; i < STREAMS; i++) {
                int stream = 2 * i + 1;
                frame(frames, HEADERS, 0x5, stream, block); // END_STREAM | END_HEADERS
                frame(frames, RST_STREAM, 0, stream, new byte[] {0, 0, 0, 8}); // CANCEL
            }
            frame(frames, PING, 0, 0, new byte[8]);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(frames.toByteArray());
                out.flush();
            } catch (IOException closedMeanwhile) {
                return "closed by the server";
            }
            DataInputStream in = new DataInputStream(socket.getInputStream());
            try {
                while (true) {
                    int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
                    int type = in.readUnsignedByte();
                    int flags = in.readUnsignedByte();
                    in.readInt(); // the stream
                    in.readFully(new byte[length]);
                    if (type == PING && (flags & 1) != 0) {
                        return "PING answered";
                    }
                }
            } catch (SocketTimeoutException e) {
                return "neither the PING answered nor the connection closed in 20 s";
            } catch (EOFException | java.net.SocketException e) { // an end, or a reset
                return "closed by the server";
            }
        }
    }

    private static void frame(ByteArrayOutputStream out, int type, int flags, int stream, byte[] payload) {
        out.write(payload.length >>> 16);
        out.write(payload.length >>> 8);
        out.write(payload.length);
        out.write(type);
        out.write(flags);
        out.write(stream >>> 24);
        out.write(stream >>> 16);
        out.write(stream >>> 8);
        out.write(stream);
        out.writeBytes(payload);
    }
}
