package dev.uringactors.http;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.Backend;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.PlainFuture;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.HttpsConnectionContext;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ConnectionPoolSettings;
import org.apache.pekko.http.scaladsl.model.EntityStreamException;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pekko HTTP's client through the rings ({@link UringClientTransport}): pools, TLS, HTTP/2, and upstreams that
 * refuse, stall, trickle, reset, overflow or drop their keep-alive connections. Every request is answered once,
 * and no socket is left behind.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@BothBackends
class UringClientTransportTest {
    private static final long DEADLINE_SECONDS = 60;
    private static final String RESPONSE_OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

    private final ActorTestKit testKit = system("");
    private final Client client = new Client(testKit);
    private final ActorSystem system = client.system();
    private final Http http = client.http();

    @AfterAll
    void shutDown() {
        testKit.shutdownTestKit();
    }

    /**
     * A system of its own for a test that shuts down the pools: {@code shutdownAllConnectionPools} waits for every
     * pool of the system, and a connection Pekko keeps after a refused response (as it does on its own transport
     * too) holds it until that connection's idle timeout.
     */
    private static ActorTestKit system(String config) {
        return ActorTestKit.create(ConfigFactory.parseString(config + """

                uring.rings = 2
                pekko.http.server.enable-http2 = on
                pekko.http.host-connection-pool { max-connections = 32, max-open-requests = 16384 }
                """).withFallback(ConfigFactory.load()));
    }

    // ---- the pool, the transport and what a user sees

    @Test
    void aRequestThroughThePoolConnectsThroughTheRings() throws Exception {
        ServerBinding upstream = pekkosOwnServer(CompletableFuture::new);
        long opened = ringConnectionsOpened();
        HttpResponse response = await(get("http://127.0.0.1:" + port(upstream) + "/", pool("")));
        assertEquals(200, response.status().intValue());
        assertEquals(TestRoutes.HELLO, await(body(response)));
        if (onRings()) {
            assertTrue(ringConnectionsOpened() > opened, "the pool's connection was opened on a ring");
        }
        await(upstream.unbind());
    }

    @Test
    void tenThousandRequestsThroughAPoolOf32AreEachAnsweredOnceThoughTheUpstreamRestarts() throws Exception {
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        ActorTestKit kit = system("");
        Client own = new Client(kit);
        ServerBinding upstream = ringServer(0);
        int port = port(upstream);
        ConnectionPoolSettings pool = own.pool("");
        await(own.get("http://127.0.0.1:" + port + "/", pool).thenCompose(own::body)); // the threads it needs
        int threadsBefore = threads();
        long nativeBefore = outsideTheHeapKib();
        AtomicInteger done = new AtomicInteger();
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            answers.add(own.get("http://127.0.0.1:" + port + "/", pool)
                    .thenCompose(r -> own.body(r).thenApply(body -> r.status().intValue()))
                    .whenComplete((status, failure) -> done.incrementAndGet()).toCompletableFuture());
        }
        awaitCount(done::get, 3_000);
        await(upstream.terminate(Duration.ofMillis(100))); // connections closed under the requests in flight
        upstream = ringServer(port);
        int ok = 0;
        int failed = 0;
        awaitCount(done::get, 10_000);
        for (CompletableFuture<Integer> answer : answers) {
            try {
                assertEquals(200, answer.get(DEADLINE_SECONDS, TimeUnit.SECONDS));
                ok++;
            } catch (ExecutionException e) {
                failed++;
            }
        }
        assertEquals(10_000, ok + failed);
        assertTrue(ok >= 9_000, ok + " answered with 200, " + failed + " failed");
        for (int i = 0; i < 100; i++) { // the pool has recovered
            HttpResponse recovered = await(own.get("http://127.0.0.1:" + port + "/", pool));
            assertEquals(200, recovered.status().intValue());
            // Read, as a user must: a slot whose entity nobody reads is still busy when the pools shut down.
            assertEquals(TestRoutes.HELLO, await(own.body(recovered)));
        }
        await(own.http().shutdownAllConnectionPools());
        await(upstream.terminate(Duration.ofSeconds(1)));
        sockets.assertNoneNew("the pool's and the upstream's sockets");
        kit.shutdownTestKit();
        int threadsAfter = threads();
        long nativeAfter = outsideTheHeapKib();
        // A thread per connection would show: the pool opened hundreds of them over the restart. So would native
        // memory kept per connection or request: the RSS beside the heap (which grows as the JVM sizes it).
        assertTrue(threadsAfter <= threadsBefore + 24, "threads " + threadsBefore + " -> " + threadsAfter);
        assertTrue(nativeAfter - nativeBefore < 256 * 1024, "RSS beside the heap " + nativeBefore + " -> "
                + nativeAfter + " KiB");
    }

    @Test
    void aPoolShutDownWithRequestsInFlightAnswersThemAllAndClosesItsSockets() throws Exception {
        // Pekko's pool, on its own transport too, lets the requests in flight run on at a shutdown: each ends
        // with its connection's idle timeout, and those queued behind them get a connection and do the same.
        ActorTestKit kit = system("pekko.http.host-connection-pool { max-connections = 4, client.idle-timeout = 1s }");
        Client own = new Client(kit);
        try (RawUpstream silent = new RawUpstream(c -> c.getInputStream().transferTo(OutputStream.nullOutputStream()))) {
            OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
            ConnectionPoolSettings pool = own.pool("max-retries = 0");
            List<CompletableFuture<HttpResponse>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(own.get("http://127.0.0.1:" + silent.port() + "/", pool).toCompletableFuture());
            }
            awaitCount(silent::accepted, 4); // one per connection of the pool; the rest wait in it
            CompletionStage<?> shutdown = own.http().shutdownAllConnectionPools();
            for (CompletableFuture<HttpResponse> answer : answers) {
                assertFails(answer, null);
            }
            await(shutdown);
            sockets.assertNoneNew("the pool's sockets, and the upstream's for them");
        } finally {
            kit.shutdownTestKit();
        }
    }

    // ---- upstreams that fail

    @Test
    void anUpstreamThatRefusesFailsTheRequest() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        assertFails(get("http://127.0.0.1:" + port + "/", pool("max-retries = 0")), null);
    }

    @Test
    void aNameThatDoesNotResolveFailsTheRequest() throws Exception {
        // The tests' JVM looks names up in a hosts file of its own (jdk.net.hosts.file): no query leaves it.
        assertFails(get("http://no-such-host.test/", pool("max-retries = 0")), UnknownHostException.class);
    }

    @Test
    void anUpstreamThatNeverAnswersIsCutOffByTheIdleTimeout() throws Exception {
        try (RawUpstream silent = new RawUpstream(c -> c.getInputStream().transferTo(OutputStream.nullOutputStream()))) {
            long start = System.nanoTime();
            assertFails(get("http://127.0.0.1:" + silent.port() + "/",
                    pool("max-retries = 0, client.idle-timeout = 500ms")), null);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(tookMs >= 450 && tookMs < 10_000, "failed after " + tookMs + " ms");
        }
    }

    @Test
    void anUpstreamThatAnswersAByteAtATimeIsWaitedFor() throws Exception {
        String response = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        try (RawUpstream trickle = new RawUpstream(c -> {
            readHead(c.getInputStream());
            for (byte b : response.getBytes(StandardCharsets.US_ASCII)) {
                c.getOutputStream().write(b);
                c.getOutputStream().flush();
                Thread.sleep(20); // the upstream's own pace: in all longer than the idle timeout
            }
            c.getInputStream().transferTo(OutputStream.nullOutputStream());
        })) {
            HttpResponse answer = await(get("http://127.0.0.1:" + trickle.port() + "/",
                    pool("max-retries = 0, client.idle-timeout = 300ms")));
            assertEquals("hello", await(body(answer)));
        }
    }

    @Test
    void anUpstreamThatResetsMidResponseFailsIt() throws Exception {
        try (RawUpstream reset = new RawUpstream(c -> {
            readHead(c.getInputStream());
            c.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"
                    .getBytes(StandardCharsets.US_ASCII));
            c.getOutputStream().flush();
            c.setSoLinger(true, 0); // the close sends RST
        })) {
            assertFails(get("http://127.0.0.1:" + reset.port() + "/", pool("max-retries = 0"))
                    .thenCompose(this::body), null);
        }
    }

    @Test
    void aResponseLargerThanTheLimitIsRefused() throws Exception {
        try (RawUpstream huge = new RawUpstream(c -> {
            readHead(c.getInputStream());
            c.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            c.getOutputStream().write(new byte[64 * 1024]);
            c.getInputStream().transferTo(OutputStream.nullOutputStream());
        })) {
            assertFails(get("http://127.0.0.1:" + huge.port() + "/", pool("max-retries = 0, client.idle-timeout = 1s"))
                    .thenCompose(this::body), EntityStreamException.class);
        }
    }

    /**
     * The README's client line, called as a service calls it: once a request, 10,000 times, 16 in flight, every
     * other time with settings a user makes anew from Pekko's own and the transport. It is one pool: at most its
     * four connections reach the upstream. (Before, each call's settings named a pool of their own, and 10,000
     * calls left some 1,000 connections open.)
     */
    @Test
    void theReadmesClientLineCalledTenThousandTimesUsesOnePool() throws Exception {
        ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString("""
                uring.rings = 2
                pekko.http.host-connection-pool.max-connections = 4
                """).withFallback(ConfigFactory.load()));
        ActorSystem own = Adapter.toClassic(kit.system());
        Client ownClient = new Client(kit);
        try (RawUpstream upstream = new RawUpstream(c -> {
            InputStream in = c.getInputStream();
            while (readHead(in)) {
                c.getOutputStream().write(RESPONSE_OK.getBytes(StandardCharsets.US_ASCII));
                c.getOutputStream().flush();
            }
        })) {
            String uri = "http://127.0.0.1:" + upstream.port() + "/";
            Semaphore inFlight = new Semaphore(16);
            AtomicInteger answered = new AtomicInteger();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                assertTrue(inFlight.tryAcquire(DEADLINE_SECONDS, TimeUnit.SECONDS), "an answer within the deadline");
                Http http = Http.get(own);
                ConnectionPoolSettings settings = i % 2 == 0 ? UringHttp.get(own).connectionPoolSettings()
                        : ConnectionPoolSettings.create(own).withTransport(UringClientTransport.get());
                CompletionStage<HttpResponse> response = http.singleRequest(HttpRequest.GET(uri),
                        http.defaultClientHttpsContext(), settings, own.log());
                PlainFuture.of(response, own).thenCompose(ownClient::body).whenComplete((body, failure) -> {
                    if (failure != null) {
                        failures.add(failure);
                    } else if (body.equals("ok")) {
                        answered.incrementAndGet();
                    }
                    inFlight.release();
                });
            }
            assertTrue(inFlight.tryAcquire(16, DEADLINE_SECONDS, TimeUnit.SECONDS), "the last answers came");
            assertEquals(List.of(), failures);
            assertEquals(10_000, answered.get());
            assertTrue(upstream.accepted() <= 4, "one pool of 4 connections: " + upstream.accepted() + " accepted");
        } finally {
            kit.shutdownTestKit();
        }
    }

    @Test
    void anUpstreamThatClosesKeepAliveConnectionsAtRandomStillAnswersEveryRequest() throws Exception {
        try (RawUpstream flaky = new RawUpstream(c -> {
            InputStream in = c.getInputStream();
            int answers = ThreadLocalRandom.current().nextInt(1, 4); // then it closes, without saying so
            for (int i = 0; i < answers && readHead(in); i++) {
                c.getOutputStream().write(RESPONSE_OK.getBytes(StandardCharsets.US_ASCII));
                c.getOutputStream().flush();
            }
        })) {
            ConnectionPoolSettings pool = pool("max-connections = 8");
            List<CompletableFuture<String>> answers = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                answers.add(get("http://127.0.0.1:" + flaky.port() + "/", pool).thenCompose(this::body)
                        .toCompletableFuture());
            }
            for (CompletableFuture<String> answer : answers) {
                assertEquals("ok", answer.get(DEADLINE_SECONDS, TimeUnit.SECONDS));
            }
            assertTrue(flaky.accepted() > 8, "connections were closed and opened again: " + flaky.accepted());
        }
    }

    // ---- TLS and HTTP/2

    @Test
    void httpsThroughTheRings(@TempDir Path dir) throws Exception {
        SelfSigned certificate = SelfSigned.in(dir);
        ServerBinding upstream = await(UringHttp.get(system).newServerAt("127.0.0.1", 0)
                .enableHttps(ConnectionContext.httpsServer(certificate.serverContext()))
                .bind(TestRoutes.routes(CompletableFuture::new)));
        HttpsConnectionContext trusting = ConnectionContext.httpsClient(certificate.clientContext());
        HttpResponse response = await(http.singleRequest(HttpRequest.GET("https://127.0.0.1:" + port(upstream) + "/"),
                trusting, pool(""), system.log()));
        assertEquals(TestRoutes.HELLO, await(body(response)));
        await(upstream.unbind());
    }

    @Test
    void http2With100ConcurrentStreamsOverOneConnection() throws Exception {
        int streams = 100;
        AtomicInteger arrived = new AtomicInteger();
        CompletableFuture<String> all = new CompletableFuture<>();
        ServerBinding upstream = ringServerAt(0, () -> { // each waits until all are in: they run at once
            if (arrived.incrementAndGet() == streams) {
                all.complete("together");
            }
            return all;
        });
        var connection = http.connectionTo("127.0.0.1").toPort(port(upstream))
                .withClientConnectionSettings(UringHttp.get(system).clientConnectionSettings())
                .http2WithPriorKnowledge();
        List<String> bodies = await(Source.range(1, streams).map(i -> HttpRequest.GET("/slow"))
                .via(connection)
                .mapAsyncUnordered(streams, this::body)
                .runWith(Sink.seq(), client.materializer()));
        assertEquals(streams, bodies.size());
        assertEquals(Set.of("together"), new HashSet<>(bodies));
        await(upstream.unbind());
    }

    // ---- helpers

    private ConnectionPoolSettings pool(String overrides) {
        return client.pool(overrides);
    }

    private CompletionStage<HttpResponse> get(String uri, ConnectionPoolSettings pool) {
        return client.get(uri, pool);
    }

    private CompletionStage<String> body(HttpResponse response) {
        return client.body(response);
    }

    /** Requests from one system's pools, through the rings. */
    private record Client(ActorSystem system, Http http, Materializer materializer) {
        Client(ActorTestKit kit) {
            this(Adapter.toClassic(kit.system()), Http.get(Adapter.toClassic(kit.system())),
                    Materializer.matFromSystem(kit.system()));
        }

        /** Host connection pool settings with {@code overrides} ({@code pekko.http.host-connection-pool}'s keys). */
        ConnectionPoolSettings pool(String overrides) {
            return ConnectionPoolSettings.create(ConfigFactory.parseString("pekko.http.host-connection-pool {"
                    + overrides + "}").withFallback(system.settings().config()))
                    .withTransport(UringClientTransport.get());
        }

        CompletionStage<HttpResponse> get(String uri, ConnectionPoolSettings pool) {
            return http.singleRequest(HttpRequest.GET(uri), http.defaultClientHttpsContext(), pool, system.log());
        }

        CompletionStage<String> body(HttpResponse response) {
            return response.entity().toStrict(10_000, materializer).thenApply(e -> e.getData().utf8String());
        }
    }

    private ServerBinding pekkosOwnServer(java.util.function.Supplier<CompletionStage<String>> slow)
            throws Exception {
        return await(http.newServerAt("127.0.0.1", 0).bind(TestRoutes.routes(slow)));
    }

    private ServerBinding ringServer(int port) throws Exception {
        return ringServerAt(port, CompletableFuture::new);
    }

    private ServerBinding ringServerAt(int port, java.util.function.Supplier<CompletionStage<String>> slow)
            throws Exception {
        return await(UringHttp.get(system).newServerAt("127.0.0.1", port).bind(TestRoutes.routes(slow)));
    }

    private static int port(ServerBinding binding) {
        return binding.localAddress().getPort();
    }

    private boolean onRings() {
        return UringExtension.get(testKit.system()).backend() == Backend.IO_URING;
    }

    private long ringConnectionsOpened() throws Exception {
        if (!onRings()) {
            return 0;
        }
        return await(UringExtension.get(testKit.system()).stats()).stream()
                .mapToLong((RingLoopStats s) -> s.tcp().connectionsOpened()).sum();
    }

    /** Reads a request's head, up to its empty line; false at the end of stream. */
    private static boolean readHead(InputStream in) throws Exception {
        int matched = 0;
        int b;
        while ((b = in.read()) >= 0) {
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == 4) {
                return true;
            }
        }
        return false;
    }

    /** Asserts that {@code answer} fails within the deadline, with {@code cause} in its chain if one is named. */
    private static void assertFails(CompletionStage<?> answer, Class<? extends Throwable> cause) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> answer.toCompletableFuture().get(DEADLINE_SECONDS, TimeUnit.SECONDS));
        if (cause != null) {
            boolean found = false;
            for (Throwable t = e; t != null && !found; t = t.getCause()) {
                found = cause.isInstance(t);
            }
            assertTrue(found, () -> "expected " + cause.getSimpleName() + " in " + chain(e));
        }
    }

    private static String chain(Throwable e) {
        StringBuilder s = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            s.append(s.length() == 0 ? "" : " <- ").append(t);
        }
        return s.toString();
    }

    private static void awaitCount(IntSupplier count, int atLeast) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        while (count.getAsInt() < atLeast) {
            assertTrue(System.nanoTime() < deadline, "only " + count.getAsInt() + " of " + atLeast + " in time");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // a poll of a counter, with a deadline
        }
    }

    private static int threads() throws Exception {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            return (int) tasks.count();
        }
    }

    /**
     * This process's resident set ({@code VmRSS} of {@code /proc/self/status}) less the heap the JVM has committed,
     * in KiB: native buffers, thread stacks and the JVM's own memory.
     */
    private static long outsideTheHeapKib() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) - Runtime.getRuntime().totalMemory() / 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
