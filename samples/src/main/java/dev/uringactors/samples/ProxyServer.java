package dev.uringactors.samples;

import com.typesafe.config.Config;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.http.UringHttp;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.Uri;
import org.apache.pekko.http.javadsl.settings.ConnectionPoolSettings;
import org.apache.pekko.stream.BufferOverflowException;
import org.apache.pekko.stream.Materializer;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A reverse proxy: every request goes on to the upstream through Pekko HTTP's host connection pool, and its
 * response streams back. On {@link Transport#URING} both sides are on the rings (the server through
 * {@link UringHttp}, the pool through its client transport); on {@link Transport#PEKKO} both on Pekko's own TCP.
 * Bounded by the pool ({@code samples.proxy.max-connections} to the upstream, {@code max-open-requests} waiting
 * for one: a request beyond them is answered 503); an upstream that refuses or fails is answered 502 Bad Gateway,
 * and one that has not answered within {@code samples.proxy.upstream-timeout} 504 Gateway Timeout. The rest of
 * the pool's settings are Pekko's ({@code pekko.http.host-connection-pool}).
 */
public final class ProxyServer {
    /** Which TCP the proxy runs on, as a server and as a client. */
    public enum Transport { URING, PEKKO }

    /**
     * Headers not passed on: those of one hop (RFC 9110, 7.6.1; Pekko models Connection and Transfer-Encoding
     * itself), the client's Host (the upstream's authority goes instead), and Pekko's synthetic Timeout-Access.
     */
    private static final Set<String> NOT_PASSED_ON = Set.of("keep-alive", "proxy-connection", "te", "trailer",
            "upgrade", "proxy-authorization", "proxy-authenticate", "host", "timeout-access");

    private final UringHttp http;
    private final ConnectionPoolSettings pool;
    private final Materializer materializer;
    private final InetSocketAddress upstream;
    private final Duration upstreamTimeout;

    private ProxyServer(ClassicActorSystemProvider system, Transport transport, InetSocketAddress upstream) {
        Config settings = system.classicSystem().settings().config().getConfig("samples.proxy");
        this.http = UringHttp.get(system);
        this.pool = (transport == Transport.URING ? http.connectionPoolSettings()
                : ConnectionPoolSettings.create(system.classicSystem()))
                .withMaxConnections(settings.getInt("max-connections"))
                .withMaxOpenRequests(settings.getInt("max-open-requests"));
        this.materializer = Materializer.matFromSystem(system);
        this.upstream = upstream;
        this.upstreamTimeout = settings.getDuration("upstream-timeout");
    }

    /** Binds {@code address}; {@code bound} completes with the address, or with the bind's failure. */
    public static Behavior<TcpProtocol.Event> create(InetSocketAddress address,
                                                     CompletableFuture<InetSocketAddress> bound,
                                                     Transport transport, InetSocketAddress upstream) {
        return Behaviors.setup(ctx -> {
            ProxyServer proxy = new ProxyServer(ctx.getSystem(), transport, upstream);
            String host = address.getAddress().getHostAddress();
            ServerBuilder server = transport == Transport.URING
                    ? UringHttp.get(ctx.getSystem()).newServerAt(host, address.getPort())
                    : Http.get(ctx.getSystem()).newServerAt(host, address.getPort());
            server.bind(proxy::forward).whenComplete((binding, failure) -> {
                if (failure != null) {
                    bound.completeExceptionally(failure);
                } else {
                    binding.addToCoordinatedShutdown(Duration.ofSeconds(5), ctx.getSystem());
                    bound.complete(binding.localAddress());
                }
            });
            return Behaviors.empty();
        });
    }

    /** The request, sent on to the upstream; its response, or the status that says why there is none. */
    CompletionStage<HttpResponse> forward(HttpRequest request) {
        Uri uri = request.getUri().scheme("http").host(upstream.getHostString()).port(upstream.getPort());
        HttpRequest onward = request.withUri(uri).withHeaders(passedOn(request.getHeaders()));
        // Through the pool of either transport, in a stage that starts no thread (Pekko's own starts one per
        // callback where the JVM sees two CPUs or fewer).
        CompletableFuture<HttpResponse> answer = http.singleRequest(onward, pool).toCompletableFuture();
        return answer.thenApply(r -> r.withHeaders(passedOn(r.getHeaders())))
                .orTimeout(upstreamTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionally(failure -> {
                    // A response that comes after the 504 was sent holds a pool connection until it is read.
                    answer.thenAccept(late -> late.discardEntityBytes(materializer));
                    return failed(failure instanceof CompletionException ? failure.getCause() : failure);
                });
    }

    private HttpResponse failed(Throwable cause) {
        StatusCode status = cause instanceof TimeoutException ? StatusCodes.GATEWAY_TIMEOUT
                : cause instanceof BufferOverflowException ? StatusCodes.SERVICE_UNAVAILABLE
                : StatusCodes.BAD_GATEWAY;
        String why = status == StatusCodes.GATEWAY_TIMEOUT ? "no answer within " + upstreamTimeout
                : status == StatusCodes.SERVICE_UNAVAILABLE ? "too many requests waiting for the upstream"
                : String.valueOf(cause.getMessage());
        return HttpResponse.create().withStatus(status).withEntity("upstream " + upstream.getHostString() + ":"
                + upstream.getPort() + ": " + why + "\n");
    }

    private static Iterable<HttpHeader> passedOn(Iterable<HttpHeader> headers) {
        List<HttpHeader> kept = new ArrayList<>();
        for (HttpHeader h : headers) {
            if (!NOT_PASSED_ON.contains(h.lowercaseName())) {
                kept.add(h);
            }
        }
        return kept;
    }
}
