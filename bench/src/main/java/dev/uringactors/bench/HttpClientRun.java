package dev.uringactors.bench;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.http.UringHttp;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.settings.ConnectionPoolSettings;
import org.apache.pekko.stream.Materializer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The http-client benchmark's client ({@code http-client-run --transport uring|pekko --url U}): a request through
 * a host connection pool of {@code --connections}, sent as each transport's users are shown to send it
 * ({@code UringHttp.singleRequest} on the rings, Pekko's {@code Http.singleRequest} on its own), keeping
 * {@code --concurrency} requests in flight, each response's entity read to its end. Says
 * "ready", then for each line "run S" on its input loads for S seconds, lets the requests in flight finish, and
 * answers "rate R failed F" (responses a second). Ends at the end of its input.
 */
final class HttpClientRun {
    private final Http http;
    private final UringHttp uring;
    private final Materializer materializer;
    private final ConnectionPoolSettings pool;
    private final HttpRequest request;
    private final LoggingAdapter log;
    private final AtomicBoolean loading = new AtomicBoolean();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();

    private HttpClientRun(ActorSystem<Void> system, boolean rings, String url) {
        org.apache.pekko.actor.ActorSystem classic = Adapter.toClassic(system);
        http = Http.get(classic);
        materializer = Materializer.matFromSystem(classic);
        uring = rings ? UringHttp.get(classic) : null;
        pool = ConnectionPoolSettings.create(classic);
        request = HttpRequest.GET(url);
        log = classic.log();
    }

    static void main(Args args) throws Exception {
        String transport = args.string("transport", "uring");
        if (!transport.equals("uring") && !transport.equals("pekko")) {
            throw new IllegalArgumentException("--transport " + transport + ": uring or pekko");
        }
        int connections = args.intValue("connections", 64);
        int concurrency = args.intValue("concurrency", 128);
        String url = args.string("url", "http://127.0.0.1:8080/");
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "client-" + transport,
                ConfigFactory.parseString("uring.rings = 1\npekko.loglevel = WARNING\n"
                        + "pekko.http.host-connection-pool { max-connections = " + connections
                        + ", max-open-requests = " + Integer.highestOneBit(concurrency * 2) + " }")
                        .withFallback(ConfigFactory.load()));
        HttpClientRun client = new HttpClientRun(system, transport.equals("uring"), url);
        System.out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && line.startsWith("run ")) {
            long[] counts = client.load(concurrency, Integer.parseInt(line.substring(4).trim()));
            System.out.println("rate " + counts[0] + " failed " + counts[1]);
        }
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** Loads for {@code seconds}; returns the responses a second and the failures in that time. */
    private long[] load(int concurrency, int seconds) throws InterruptedException {
        loading.set(true);
        for (int i = 0; i < concurrency; i++) {
            send();
        }
        long answeredBefore = answered.get();
        long failedBefore = failed.get();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds)); // the run's length, as wrk's -d
        long count = answered.get() - answeredBefore;
        long failures = failed.get() - failedBefore;
        loading.set(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10); // the last requests end: the client is quiet before the next run
        }
        return new long[] {count / seconds, failures};
    }

    /**
     * One request, as each transport's users are shown to send it: through the rings with the README's
     * {@code UringHttp.singleRequest}, and with Pekko's {@code Http.singleRequest} otherwise.
     */
    private void send() {
        inFlight.incrementAndGet();
        (uring != null ? uring.singleRequest(request)
                : http.singleRequest(request, http.defaultClientHttpsContext(), pool, log))
                .thenCompose(response -> response.entity().discardBytes(materializer).completionStage())
                .whenComplete((done, failure) -> {
                    inFlight.decrementAndGet();
                    (failure == null ? answered : failed).incrementAndGet();
                    if (loading.get()) {
                        send();
                    }
                });
    }
}
