package dev.uringactors.http.internal;

import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.impl.engine.HttpConnectionIdleTimeoutBidi;
import org.apache.pekko.http.impl.engine.server.GracefulTerminatorStage;
import org.apache.pekko.http.impl.engine.server.MasterServerTerminator;
import org.apache.pekko.http.impl.engine.server.ServerTerminator;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.scaladsl.Http$;
import org.apache.pekko.http.scaladsl.HttpExt;
import org.apache.pekko.http.scaladsl.model.HttpRequest;
import org.apache.pekko.http.scaladsl.model.HttpResponse;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.TLSProtocol;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.util.ByteString;
import scala.Option;
import scala.concurrent.duration.FiniteDuration;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;

/**
 * Pekko HTTP's own server stack for one connection, built as {@code Http().newServerAt(...)} builds it: the
 * graceful terminator, the HTTP/1.1 server layer, TLS (or its placebo) and the idle timeout, bytes at the bottom.
 * Three of these pieces are not public in Pekko HTTP (the TLS stage for a connection context, the idle-timeout
 * stage and the terminators); they are reached here and nowhere else, so that a Pekko HTTP upgrade that moves
 * them breaks this one class, and so that every {@code pekko.http.server} setting means what it means there.
 */
public final class ServerStack {
    private final ActorSystem system;
    private final HttpExt http;
    private final ServerSettings settings;
    private final ConnectionContext context;
    private final LoggingAdapter log;

    public ServerStack(ActorSystem system, ServerSettings settings, ConnectionContext context, LoggingAdapter log) {
        this.system = system;
        this.http = Http$.MODULE$.apply(system);
        this.settings = settings;
        this.context = context;
        this.log = log;
    }

    public ServerSettings settings() {
        return settings;
    }

    /** A terminator for a binding's connections: what {@code ServerBinding.terminate} runs. */
    public MasterServerTerminator newMasterTerminator() {
        return new MasterServerTerminator(log);
    }

    /** As Pekko HTTP cancels a connection's stages: after {@code stream-cancellation-delay}. */
    public Attributes cancellationStrategy() {
        return Http$.MODULE$.cancellationStrategyAttributeForDelay(settings.streamCancellationDelay());
    }

    /**
     * The stack for a connection from {@code remote}: responses in and bytes out on top, bytes in and requests out
     * below; its value terminates the connection gracefully.
     */
    @SuppressWarnings("unchecked") // Scala's variance: a placebo or TLS stage is a BidiFlow of these types
    public BidiFlow<HttpResponse, ByteString, ByteString, HttpRequest, ServerTerminator> forConnection(
            InetSocketAddress remote) {
        Option<InetSocketAddress> from = Option.apply(remote);
        var tls = (org.apache.pekko.stream.scaladsl.BidiFlow<TLSProtocol.SslTlsOutbound, ByteString, ByteString,
                TLSProtocol.SslTlsInbound, NotUsed>) (Object) http.sslTlsServerStage(
                (org.apache.pekko.http.scaladsl.ConnectionContext) context);
        var bytes = http.serverLayer(settings, from, log, context.isSecure()).atop(tls);
        if (settings.timeouts().idleTimeout() instanceof FiniteDuration idle) {
            bytes = bytes.atop(HttpConnectionIdleTimeoutBidi.apply(idle, from));
        }
        return GracefulTerminatorStage.apply(system, settings).atop(bytes).asJava();
    }

    /**
     * {@code handler} on top of the stack: a flow of bytes whose value is the handler's end (both ways) and the
     * connection's terminator.
     */
    public Flow<ByteString, ByteString, Pair<CompletionStage<Done>, ServerTerminator>> withHandler(
            Flow<HttpRequest, HttpResponse, ?> handler, InetSocketAddress remote) {
        Flow<HttpRequest, HttpResponse, CompletionStage<Done>> watched = Flow.of(HttpRequest.class)
                .watchTermination(Keep.right())
                .via(handler)
                .watchTermination((before, after) -> before.thenCompose(done -> after));
        return watched.joinMat(forConnection(remote), Keep.both());
    }
}
