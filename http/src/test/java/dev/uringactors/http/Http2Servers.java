package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.settings.ServerSettings;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/2 tests' servers: {@link TestRoutes} with {@code pekko.http.server.enable-http2 = on}, one without TLS
 * (h2c) and one with a self-signed certificate (h2 by ALPN). Each request to {@code /slow} waits for the test to
 * complete the future it put in {@link #slow}.
 */
final class Http2Servers implements AutoCloseable {
    final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString(
            "pekko.http.server.enable-http2 = on").withFallback(ConfigFactory.load()));
    final LinkedBlockingQueue<CompletableFuture<String>> slow = new LinkedBlockingQueue<>();
    final SelfSigned certificate;
    final ServerBinding plain;
    final ServerBinding secure;

    Http2Servers(Path dir) throws Exception {
        try {
            certificate = SelfSigned.in(dir);
            plain = bind(false, false);
            secure = bind(true, false);
        } catch (Exception | AssertionError e) {
            close();
            throw e;
        }
    }

    /** The server without TLS, or with. */
    int port(boolean tls) {
        return (tls ? secure : plain).localAddress().getPort();
    }

    /** Another server, on the rings or with {@code pekkosOwn} on Pekko HTTP's own TCP, to compare. */
    ServerBinding bind(boolean tls, boolean pekkosOwn) throws Exception {
        return bind(tls, pekkosOwn, "");
    }

    /** Another server, with {@code serverSettings} ({@code pekko.http.server}'s keys) over the defaults. */
    ServerBinding bind(boolean tls, boolean pekkosOwn, String serverSettings) throws Exception {
        ServerBuilder server = (pekkosOwn ? Http.get(testKit.system()).newServerAt("127.0.0.1", 0)
                : UringHttp.get(testKit.system()).newServerAt("127.0.0.1", 0))
                .withSettings(ServerSettings.create(ConfigFactory.parseString("pekko.http.server {" + serverSettings
                        + "}").withFallback(testKit.system().settings().config())));
        if (tls) {
            server = server.enableHttps(ConnectionContext.httpsServer(certificate.serverContext()));
        }
        return server.bind(TestRoutes.routes(() -> {
            CompletableFuture<String> answer = new CompletableFuture<>();
            slow.add(answer);
            return answer;
        })).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        testKit.shutdownTestKit();
    }
}
