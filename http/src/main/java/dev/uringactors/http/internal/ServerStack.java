package dev.uringactors.http.internal;

import dev.uringactors.actors.stream.UringTcp;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.impl.engine.server.GracefulTerminatorStage;
import org.apache.pekko.http.impl.engine.server.MasterServerTerminator;
import org.apache.pekko.http.impl.engine.server.ServerTerminator;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.IncomingConnection;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.scaladsl.Http;
import org.apache.pekko.http.scaladsl.Http$;
import org.apache.pekko.http.scaladsl.HttpExt;
import org.apache.pekko.http.scaladsl.model.HttpRequest;
import org.apache.pekko.http.scaladsl.model.HttpResponse;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.TLSProtocol;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.util.ByteString;
import scala.Option;
import scala.concurrent.ExecutionContext;
import scala.concurrent.duration.FiniteDuration;
import scala.jdk.javaapi.FutureConverters;
import scala.runtime.BoxedUnit;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;

/**
 * Pekko HTTP's own server stack for one connection, built as {@code Http().newServerAt(...)} builds it: the
 * graceful terminator, the HTTP/1.1 server layer, TLS (or its placebo) and the idle timeout, bytes at the bottom;
 * and the binding's side of it, the terminator that {@code ServerBinding.terminate} runs.
 *
 * <p>This is the one class that reaches Pekko HTTP's internals (its {@code impl} packages and the members that
 * are public in bytecode only): the terminators and their stage, the TLS stage for a connection context, and the
 * constructors of the Java API's {@code IncomingConnection} and {@code ServerBinding}. Everything else uses Pekko
 * HTTP's public API, so that a Pekko HTTP that moves them breaks this class alone ({@code PekkoHttpInternalsTest}),
 * and a server refuses to start with another minor version than the one it was built against
 * ({@link PekkoHttpVersions}).
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

    /** The connections of one binding, which its {@code terminate} ends; {@code ec} runs the termination. */
    public Connections newConnections(ExecutionContext ec) {
        return new Connections(new MasterServerTerminator(log), ec);
    }

    /** One binding's connections, each registered with the binding's terminator while it is open. */
    public final class Connections {
        private final MasterServerTerminator terminator;
        private final ExecutionContext ec;

        private Connections(MasterServerTerminator terminator, ExecutionContext ec) {
            this.terminator = terminator;
            this.ec = ec;
        }

        /**
         * {@code handler} on top of the stack for a connection from {@code remote}: a flow of bytes whose value
         * completes when the handler is done both ways. While it runs, the binding's terminate reaches it.
         */
        public Flow<ByteString, ByteString, CompletionStage<Done>> handling(Flow<HttpRequest, HttpResponse, ?> handler,
                                                                          InetSocketAddress remote) {
            Flow<HttpRequest, HttpResponse, CompletionStage<Done>> watched = Flow.of(HttpRequest.class)
                    .watchTermination(Keep.right())
                    .via(handler)
                    .watchTermination((before, after) -> before.thenCompose(done -> after));
            return watched.joinMat(forConnection(remote), Keep.both())
                    .watchTermination((values, ended) -> {
                        ended.whenComplete((done, failure) -> terminator.removeConnection(values.second()));
                        return values;
                    })
                    .mapMaterializedValue(values -> {
                        terminator.registerConnection(values.second(), ec);
                        return values.first();
                    })
                    .addAttributes(cancellationStrategy());
        }

        /**
         * An accepted connection as Pekko HTTP's {@link IncomingConnection}: its HTTP stack joined to the socket,
         * both run on {@code dispatcher}. As with Pekko HTTP's own connection source, terminate does not reach
         * it; the handler joined to it does.
         */
        public IncomingConnection incoming(UringTcp.IncomingConnection tcp, String dispatcher) {
            return new IncomingConnection(new Http.IncomingConnection(tcp.localAddress(), tcp.remoteAddress(),
                    forConnection(tcp.remoteAddress()).join(tcp.flow()).async(dispatcher).asScala()));
        }

        /** Pekko HTTP's binding for the TCP one: unbind is the TCP unbind, terminate ends these connections. */
        public ServerBinding binding(UringTcp.ServerBinding tcp) {
            return new ServerBinding(new Http.ServerBinding(tcp.localAddress(),
                    () -> FutureConverters.asScala(tcp.unbind().thenApply(v -> BoxedUnit.UNIT)),
                    deadline -> terminator.terminate(deadline, ec)));
        }
    }

    /**
     * The stack for a connection from {@code remote}: responses in and bytes out on top, bytes in and requests out
     * below; its value terminates the connection gracefully.
     */
    private BidiFlow<HttpResponse, ByteString, ByteString, HttpRequest, ServerTerminator> forConnection(
            InetSocketAddress remote) {
        BidiFlow<HttpResponse, ByteString, ByteString, HttpRequest, NotUsed> bytes = BidiFlow
                .fromGraph(http.serverLayer(settings, Option.apply(remote), log, context.isSecure()))
                .atop(tls());
        if (settings.timeouts().idleTimeout() instanceof FiniteDuration idle) {
            bytes = bytes.atop(BidiFlow.bidirectionalIdleTimeout(idle));
        }
        return BidiFlow.fromGraph(GracefulTerminatorStage.apply(system, settings))
                .atop(DeadlineResponseStage.layer(settings))
                .atop(bytes);
    }

    /** TLS for an HTTPS context, or its placebo. */
    @SuppressWarnings("unchecked") // Scala's variance: a placebo or TLS stage is a BidiFlow of these types
    private BidiFlow<TLSProtocol.SslTlsOutbound, ByteString, ByteString, TLSProtocol.SslTlsInbound, NotUsed> tls() {
        return BidiFlow.fromGraph((org.apache.pekko.stream.scaladsl.BidiFlow<TLSProtocol.SslTlsOutbound, ByteString,
                ByteString, TLSProtocol.SslTlsInbound, NotUsed>) (Object) http.sslTlsServerStage(
                (org.apache.pekko.http.scaladsl.ConnectionContext) context));
    }

    /** As Pekko HTTP cancels a connection's stages: failing them, after {@code stream-cancellation-delay}. */
    private Attributes cancellationStrategy() {
        FiniteDuration delay = settings.streamCancellationDelay();
        return Attributes.apply(new Attributes.CancellationStrategy(delay.length() == 0
                ? Attributes.cancellationStrategyFailStage()
                : Attributes.cancellationStrategyAfterDelay(delay, Attributes.cancellationStrategyFailStage())));
    }
}
