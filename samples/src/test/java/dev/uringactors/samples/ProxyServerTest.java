package dev.uringactors.samples;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequestEntity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.Directives.withoutSizeLimit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The proxy sample in front of a Pekko HTTP upstream, on both transports: requests and large bodies pass both
 * ways, streamed; a refusing upstream is answered 502, a silent one 504 after {@code samples.proxy.upstream-timeout}.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class ProxyServerTest {
    private static final byte[] BIG = bytes(4 << 20, 5);

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Map<ProxyServer.Transport, RunningServer> proxies = new EnumMap<>(ProxyServer.Transport.class);
    private final Map<ProxyServer.Transport, RunningServer> toNowhere = new EnumMap<>(ProxyServer.Transport.class);
    private RunningServer upstreamSystem;
    private ServerBinding upstream;

    @BeforeAll
    void start() throws Exception {
        upstreamSystem = RunningServer.start((address, bound) -> org.apache.pekko.actor.typed.javadsl.Behaviors
                .setup(ctx -> {
                    bound.complete(address);
                    return org.apache.pekko.actor.typed.javadsl.Behaviors.empty();
                }));
        Source<ByteString, ?> big = Source.range(0, BIG.length / 65536 - 1)
                .map(i -> ByteString.fromArray(BIG, i * 65536, 65536));
        Route routes = concat(
                pathSingleSlash(() -> get(() -> complete("upstream says hi"))),
                path("big", () -> get(() -> complete(HttpEntities.createChunked(
                        ContentTypes.APPLICATION_OCTET_STREAM, big)))),
                path("echo", () -> post(() -> withoutSizeLimit(() -> extractRequestEntity(entity -> complete(
                        HttpEntities.create(ContentTypes.APPLICATION_OCTET_STREAM, entity.getDataBytes())))))),
                path("silent", () -> get(() -> onSuccess(new CompletableFuture<String>(), s -> complete(s)))));
        upstream = Http.get(upstreamSystem.system()).newServerAt("127.0.0.1", 0).bind(routes)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        InetSocketAddress to = new InetSocketAddress("127.0.0.1", upstream.localAddress().getPort());
        int closedPort;
        try (ServerSocket closed = new ServerSocket(0)) {
            closedPort = closed.getLocalPort();
        }
        InetSocketAddress nowhere = new InetSocketAddress("127.0.0.1", closedPort);
        String settings = "samples.proxy.upstream-timeout = 1s\npekko.http.host-connection-pool.max-retries = 0";
        for (ProxyServer.Transport t : ProxyServer.Transport.values()) {
            proxies.put(t, RunningServer.start((address, bound) -> ProxyServer.create(address, bound, t, to),
                    settings));
            toNowhere.put(t, RunningServer.start((address, bound) -> ProxyServer.create(address, bound, t, nowhere),
                    settings));
        }
    }

    @AfterAll
    void stop() throws Exception {
        proxies.values().forEach(RunningServer::close);
        toNowhere.values().forEach(RunningServer::close);
        upstream.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        upstreamSystem.close();
    }

    @ParameterizedTest
    @EnumSource(ProxyServer.Transport.class)
    void aRequestIsAnsweredByTheUpstream(ProxyServer.Transport t) throws Exception {
        HttpResponse<String> r = fetch(proxies.get(t), "/?q=1", HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals("upstream says hi", r.body());
        assertEquals(404, fetch(proxies.get(t), "/missing", HttpResponse.BodyHandlers.ofString()).statusCode(),
                "the upstream's own status passes through");
    }

    @ParameterizedTest
    @EnumSource(ProxyServer.Transport.class)
    void largeBodiesPassBothWays(ProxyServer.Transport t) throws Exception {
        HttpResponse<byte[]> big = fetch(proxies.get(t), "/big", HttpResponse.BodyHandlers.ofByteArray());
        assertArrayEquals(BIG, big.body());
        byte[] posted = bytes(3 << 20, 9);
        HttpResponse<byte[]> echoed = send(HttpRequest.newBuilder(uri(proxies.get(t), "/echo"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(posted)), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, echoed.statusCode());
        assertArrayEquals(posted, echoed.body());
    }

    @ParameterizedTest
    @EnumSource(ProxyServer.Transport.class)
    void anUpstreamThatRefusesIsABadGateway(ProxyServer.Transport t) throws Exception {
        HttpResponse<String> r = fetch(toNowhere.get(t), "/", HttpResponse.BodyHandlers.ofString());
        assertEquals(502, r.statusCode());
        assertTrue(r.body().startsWith("upstream 127.0.0.1:"), r.body());
    }

    @ParameterizedTest
    @EnumSource(ProxyServer.Transport.class)
    void anUpstreamThatDoesNotAnswerIsAGatewayTimeout(ProxyServer.Transport t) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> r = fetch(proxies.get(t), "/silent", HttpResponse.BodyHandlers.ofString());
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(504, r.statusCode());
        assertTrue(tookMs >= 900, "answered after " + tookMs + " ms");
        assertEquals(200, fetch(proxies.get(t), "/", HttpResponse.BodyHandlers.ofString()).statusCode(),
                "the proxy serves on");
    }

    private <T> HttpResponse<T> fetch(RunningServer proxy, String path, HttpResponse.BodyHandler<T> body)
            throws Exception {
        return send(HttpRequest.newBuilder(uri(proxy, path)), body);
    }

    private <T> HttpResponse<T> send(HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) throws Exception {
        return client.send(request.timeout(Duration.ofSeconds(30)).build(), body);
    }

    private static URI uri(RunningServer server, String path) {
        return URI.create("http://127.0.0.1:" + server.address.getPort() + path);
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
