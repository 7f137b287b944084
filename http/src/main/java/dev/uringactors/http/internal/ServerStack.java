package dev.uringactors.http.internal;

import dev.uringactors.actors.PlainFuture;
import dev.uringactors.actors.stream.UringTcp;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.impl.engine.HttpConnectionIdleTimeoutBidi$;
import org.apache.pekko.http.impl.engine.http2.FrameEvent;
import org.apache.pekko.http.impl.engine.http2.Http2$;
import org.apache.pekko.http.impl.engine.http2.Http2Blueprint$;
import org.apache.pekko.http.impl.engine.http2.Http2Ext;
import org.apache.pekko.http.impl.engine.http2.NoOpTelemetry$;
import org.apache.pekko.http.impl.engine.http2.TelemetrySpi;
import org.apache.pekko.http.impl.engine.parsing.NotEnoughDataException$;
import org.apache.pekko.http.impl.engine.server.GracefulTerminatorStage;
import org.apache.pekko.http.impl.engine.server.HttpAttributes$;
import org.apache.pekko.http.impl.engine.server.MasterServerTerminator;
import org.apache.pekko.http.impl.engine.server.ServerTerminator;
import org.apache.pekko.http.impl.engine.server.UpgradeToOtherProtocolResponseHeader;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.IncomingConnection;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.scaladsl.Http;
import org.apache.pekko.http.scaladsl.Http$;
import org.apache.pekko.http.scaladsl.HttpExt;
import org.apache.pekko.http.scaladsl.model.HttpRequest;
import org.apache.pekko.http.scaladsl.model.HttpResponse;
import org.apache.pekko.http.scaladsl.model.headers.RawHeader;
import org.apache.pekko.http.scaladsl.model.headers.Upgrade;
import org.apache.pekko.http.scaladsl.model.http2.Http2SettingsHeader$;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.TLSProtocol;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import scala.Function1;
import scala.Option;
import scala.concurrent.ExecutionContext;
import scala.concurrent.ExecutionContextExecutor;
import scala.concurrent.Future;
import scala.concurrent.duration.FiniteDuration;
import scala.jdk.javaapi.CollectionConverters;
import scala.jdk.javaapi.FutureConverters;
import scala.runtime.BoxedUnit;
import scala.util.Try;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Pekko HTTP's own server stack for one connection, built as {@code Http().newServerAt(...)} builds it: the
 * graceful terminator, the HTTP/1.1 server layer, TLS (or its placebo) and the idle timeout, bytes at the bottom;
 * with {@code enable-http2}, as its {@code Http2().bindAndHandleAsync} builds it: that HTTP/1.1 stack (able to
 * upgrade to h2c) and the HTTP/2 one, with the switch between them. And the binding's side of it, the terminator
 * that {@code ServerBinding.terminate} runs.
 *
 * <p>This is the one class that reaches Pekko HTTP's internals (its {@code impl} packages and the members that
 * are public in bytecode only): the terminators and their stage, the TLS stage for a connection context, the
 * constructors of the Java API's {@code IncomingConnection} and {@code ServerBinding}; for HTTP/2 its extension
 * (the protocol switches, the TLS stage with ALPN), its blueprint (the HTTP/2 stack, the handler keyed by stream),
 * the parser of {@code HTTP2-Settings}, the upgrade header, the idle timeout and the remote-address attribute;
 * and the HTTP/1.1 parser's {@code NotEnoughDataException}, initialized early.
 * Everything else uses Pekko HTTP's public API, so that a Pekko HTTP that moves them breaks this class alone
 * ({@code PekkoHttpInternalsTest}), and a server refuses to start with another minor version than the one it was
 * built against ({@link PekkoHttpVersions}).
 */
public final class ServerStack {
    private static final ExecutionContext ON_COMPLETING_THREAD = ExecutionContext.fromExecutor(Runnable::run);

    static {
        // The parser throws this where a read ends mid-request, at the deepest point of its recursion (once per
        // pipelined request). Made here, on a shallow stack: a StackOverflowError in its first initialization
        // would leave the class unusable in this JVM, and every later split or malformed request unanswered.
        Objects.requireNonNull(NotEnoughDataException$.MODULE$);
    }

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

    /**
     * Why HTTP/2 cannot be served here as Pekko HTTP serves it: a telemetry ({@code pekko.http.http2-telemetry-class})
     * that Pekko HTTP's HTTP/2 binding hands Pekko's own TCP connections, which the rings do not have.
     */
    public Optional<IllegalStateException> http2Refusal() {
        TelemetrySpi telemetry = Http2$.MODULE$.apply(system).telemetry();
        if (telemetry == NoOpTelemetry$.MODULE$) {
            return Optional.empty();
        }
        return Optional.of(new IllegalStateException("pekko.http.http2-telemetry-class is set ("
                + telemetry.getClass().getName() + "): Pekko HTTP's HTTP/2 binding hands it Pekko's own TCP "
                + "connections, which a server on the rings does not have. Unset it, bind with Http.get(system), "
                + "or turn pekko.http.server.enable-http2 off."));
    }

    /** The connections of one binding, which its {@code terminate} ends; {@code ec} runs the termination. */
    public Connections newConnections(ExecutionContextExecutor ec) {
        return new Connections(new MasterServerTerminator(log), ec);
    }

    /** One binding's connections, each registered with the binding's terminator while it is open. */
    public final class Connections {
        private final MasterServerTerminator terminator;
        private final ExecutionContextExecutor ec;

        private Connections(MasterServerTerminator terminator, ExecutionContextExecutor ec) {
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
                    .watchTermination((before, after) -> PlainFuture.of(before, ec)
                            .thenCompose(done -> PlainFuture.of(after, ec)));
            return watched.joinMat(forConnection(remote), Keep.both())
                    .watchTermination((values, ended) -> {
                        PlainFuture.of(ended, ec)
                                .whenComplete((done, failure) -> terminator.removeConnection(values.second()));
                        return values;
                    })
                    .mapMaterializedValue(values -> {
                        terminator.registerConnection(values.second(), ec);
                        return values.first();
                    })
                    .addAttributes(cancellationStrategy());
        }

        /**
         * {@code handler} behind Pekko HTTP's HTTP/2 server for a connection from {@code remote}, wired as its
         * {@code Http2().bindAndHandleAsync} wires it: over TLS, ALPN chooses h2 or HTTP/1.1; without, the first
         * bytes do (the HTTP/2 preface: h2c with prior knowledge; anything else: HTTP/1.1, which may upgrade to
         * h2c). {@code handler} runs on {@code handlerContext}. The value completes when the connection has ended;
         * while it runs, the binding's terminate reaches it (an HTTP/2 connection sends GOAWAY).
         */
        public Flow<ByteString, ByteString, CompletionStage<Done>> handlingHttp2(
                Function<HttpRequest, CompletionStage<HttpResponse>> handler, InetSocketAddress remote,
                ExecutionContext handlerContext) {
            Attributes remoteAddress = settings.remoteAddressHeader() || settings.remoteAddressAttribute()
                    ? HttpAttributes$.MODULE$.remoteAddress(remote)
                    : Attributes.none();
            return Flow.fromGraph(new Http2Connection(handler, handlerContext).switching(remote))
                    .watchTermination((chosen, ended) -> {
                        CompletionStage<Done> end = PlainFuture.of(ended, ec);
                        // The terminator exists once the protocol is chosen, at the connection's first bytes.
                        chosen.foreach(connectionTerminator -> {
                            terminator.registerConnection(connectionTerminator, ec);
                            end.whenComplete((done, failure) -> terminator.removeConnection(connectionTerminator));
                            return BoxedUnit.UNIT;
                        }, ON_COMPLETING_THREAD);
                        return end;
                    })
                    .joinMat(BidiFlow.fromGraph(HttpConnectionIdleTimeoutBidi$.MODULE$.apply(
                            settings.timeouts().idleTimeout(), Option.apply(remote))), Keep.left())
                    .addAttributes(remoteAddress)
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
        BidiFlow<HttpResponse, ByteString, ByteString, HttpRequest, ServerTerminator> stack = http1(remote).atop(tls());
        if (settings.timeouts().idleTimeout() instanceof FiniteDuration idle) {
            stack = stack.atop(BidiFlow.bidirectionalIdleTimeout(idle));
        }
        return stack;
    }

    /** The graceful terminator on Pekko HTTP's HTTP/1.1 server layer, above TLS (or its placebo). */
    private BidiFlow<HttpResponse, TLSProtocol.SslTlsOutbound, TLSProtocol.SslTlsInbound, HttpRequest,
            ServerTerminator> http1(InetSocketAddress remote) {
        return BidiFlow.fromGraph(GracefulTerminatorStage.apply(system, settings))
                .atop(DeadlineResponseStage.layer(settings))
                .atop(BidiFlow.fromGraph(http.serverLayer(settings, Option.apply(remote), log, context.isSecure())));
    }

    /**
     * One connection's two protocol stacks for Pekko HTTP's HTTP/2 server, each ending in TLS records (the protocol
     * switch below them unwraps or adds TLS): HTTP/1.1 with the upgrade to h2c, and HTTP/2.
     */
    private final class Http2Connection {
        private final Http2Ext extension = Http2$.MODULE$.apply(system);
        private final Function1<HttpRequest, Future<HttpResponse>> handler;
        private final ExecutionContext handlerContext;

        Http2Connection(Function<HttpRequest, CompletionStage<HttpResponse>> handler, ExecutionContext handlerContext) {
            this.handler = request -> FutureConverters.asScala(handler.apply(request));
            this.handlerContext = handlerContext;
        }

        /**
         * Both stacks, and the switch between them: ALPN's choice over TLS, else the client's first bytes, once
         * there are enough of them to tell ({@link PrefaceGate}).
         */
        org.apache.pekko.stream.scaladsl.Flow<ByteString, ByteString, Future<ServerTerminator>> switching(
                InetSocketAddress remote) {
            var http1 = http1(remote).asScala();
            var http2 = http2().asScala();
            return context.isSecure()
                    ? extension.httpsWithAlpn((org.apache.pekko.http.scaladsl.HttpsConnectionContext) context, http1,
                            http2)
                    : Flow.fromGraph(new PrefaceGate())
                            .viaMat(Http2$.MODULE$.priorKnowledge(http1, http2), Keep.right()).asScala();
        }

        /** HTTP/1.1, answering a request to upgrade to h2c by switching the connection to HTTP/2. */
        private Flow<TLSProtocol.SslTlsInbound, TLSProtocol.SslTlsOutbound, ServerTerminator> http1(
                InetSocketAddress remote) {
            return Flow.of(HttpRequest.class)
                    .mapAsync(settings.pipeliningLimit(), request -> FutureConverters.asJava(upgradeOrHandle(request)))
                    .joinMat(ServerStack.this.http1(remote), Keep.right());
        }

        /** HTTP/2 from the start: after ALPN chose h2, or after the client's preface. */
        private Flow<TLSProtocol.SslTlsInbound, TLSProtocol.SslTlsOutbound, ServerTerminator> http2() {
            return Flow.fromGraph(handledByStream())
                    .joinMat(BidiFlow.fromGraph(Http2Blueprint$.MODULE$.serverStackTls(settings, log,
                            extension.telemetry(), http.dateHeaderRendering())), Keep.right());
        }

        /**
         * The handler, or for a request with {@code Upgrade: h2c} and one valid {@code HTTP2-Settings} header the
         * answer 101 that switches the connection to HTTP/2 (RFC 7540, 3.2), which then answers the request as
         * its stream 1. Without that header, or with a bad one, the request is handled as HTTP/1.1.
         */
        private Future<HttpResponse> upgradeOrHandle(HttpRequest request) {
            boolean h2c = request.getHeader(Upgrade.class)
                    .map(upgrade -> CollectionConverters.asJava(upgrade.protocols()).stream()
                            .anyMatch(protocol -> protocol.name().equalsIgnoreCase("h2c")))
                    .orElse(false);
            if (!h2c) {
                return handled(request);
            }
            List<Try<scala.collection.immutable.Seq<FrameEvent.Setting>>> settingsHeaders = new ArrayList<>();
            for (org.apache.pekko.http.javadsl.model.HttpHeader header : request.getHeaders()) {
                if (header instanceof RawHeader raw
                        && raw.lowercaseName().equals(Http2SettingsHeader$.MODULE$.name())) {
                    settingsHeaders.add(Http2SettingsHeader$.MODULE$.parse(raw.value(), log));
                }
            }
            if (settingsHeaders.size() != 1) {
                log.debug("h2c upgrade with {} HTTP2-Settings headers, not one: answered as HTTP/1.1",
                        settingsHeaders.size());
                return handled(request);
            }
            Try<scala.collection.immutable.Seq<FrameEvent.Setting>> clientSettings = settingsHeaders.get(0);
            if (clientSettings.isFailure()) {
                log.warning("h2c upgrade with an HTTP2-Settings header that does not parse ({}): answered as HTTP/1.1",
                        clientSettings.failed().get().getMessage());
                return handled(request);
            }
            log.debug("h2c upgrade from HTTP/1.1 to HTTP/2");
            return Future.successful(switchToHttp2(request, clientSettings.get()));
        }

        /**
         * The handler's answer, the call made on {@code handlerContext} as the HTTP/2 streams make theirs (not on
         * the ring thread that runs the connection), a throw becoming a failed answer.
         */
        private Future<HttpResponse> handled(HttpRequest request) {
            return Future.unit().flatMap(unit -> handler.apply(request), handlerContext);
        }

        /** 101 Switching Protocols, carrying the HTTP/2 stack that takes the connection over. */
        private HttpResponse switchToHttp2(HttpRequest upgrade,
                                           scala.collection.immutable.Seq<FrameEvent.Setting> clientSettings) {
            HttpRequest streamOne = (HttpRequest) upgrade.addAttribute(Http2$.MODULE$.streamId(), (Object) 1);
            Flow<ByteString, ByteString, CompletionStage<Done>> upgraded = Flow.of(HttpRequest.class)
                    .watchTermination(Keep.right())
                    .prepend(Source.single(streamOne))
                    .via(handledByStream())
                    .joinMat(BidiFlow.fromGraph(Http2Blueprint$.MODULE$.serverStack(settings, log, clientSettings,
                            true, extension.telemetry(), http.dateHeaderRendering())), Keep.left());
            return (HttpResponse) org.apache.pekko.http.javadsl.model.HttpResponse.create()
                    .withStatus(StatusCodes.SWITCHING_PROTOCOLS)
                    .addHeaders(List.of(extension.ConnectionUpgradeHeader(), extension.UpgradeHeader(),
                            new UpgradeToOtherProtocolResponseHeader(
                                    upgraded.mapMaterializedValue(Object.class::cast).asScala())));
        }

        /**
         * The handler for requests of many streams at once, at most {@code http2.max-concurrent-streams}, each
         * answer going back on its request's stream.
         */
        private org.apache.pekko.stream.scaladsl.Flow<HttpRequest, HttpResponse, NotUsed> handledByStream() {
            return Http2Blueprint$.MODULE$.handleWithStreamIdHeader(settings.http2Settings().maxConcurrentStreams(),
                    handler, handlerContext);
        }
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
