package dev.uringactors.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpClientUpgradeHandler;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2ClientUpgradeCodec;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;

import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/2 client on Netty's codec, one connection, for what the JDK's client does not let a test do: prior
 * knowledge, many streams on one connection for certain, a reset in the middle of a body, and seeing GOAWAY. The
 * connection is made one of three ways: h2c with prior knowledge, h2c by upgrade from HTTP/1.1 (the upgrade
 * request is a {@code GET /}, answered on stream 1), and h2 over TLS chosen by ALPN.
 */
final class H2Client implements AutoCloseable {
    /** How the connection comes to speak HTTP/2. */
    enum Mode { PRIOR_KNOWLEDGE, UPGRADE, TLS }

    /** A whole answer on one stream. */
    record Response(int status, byte[] body) {
        String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private static final int CHUNK = 16 * 1024;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Mode mode;
    private final int port;
    private final CompletableFuture<GoAway> goAway = new CompletableFuture<>();
    private final CompletableFuture<Response> upgradeResponse = new CompletableFuture<>();
    private Channel channel;

    private H2Client(Mode mode, int port) {
        this.mode = mode;
        this.port = port;
    }

    /** Connects and, for an upgrade, waits for it; over TLS, checks that ALPN chose h2. */
    static H2Client connect(Mode mode, int port, TrustManagerFactory trust) throws Exception {
        H2Client client = new H2Client(mode, port);
        try {
            client.open(trust);
        } catch (Exception | AssertionError e) {
            client.close();
            throw e;
        }
        return client;
    }

    private void open(TrustManagerFactory trust) throws Exception {
        SslContext tls = mode == Mode.TLS ? SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .trustManager(trust)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, "h2"))
                .build() : null;
        channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), "127.0.0.1", port));
                        }
                        if (mode == Mode.UPGRADE) {
                            HttpClientCodec http1 = new HttpClientCodec();
                            ch.pipeline().addLast(http1, new HttpClientUpgradeHandler(http1,
                                    new Http2ClientUpgradeCodec(
                                            (Http2ConnectionHandler) Http2FrameCodecBuilder.forClient().build(),
                                            multiplex()), 65536));
                        } else {
                            ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().build(), multiplex());
                        }
                        ch.pipeline().addLast(new ConnectionEvents());
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
        if (tls != null) {
            SslHandler ssl = channel.pipeline().get(SslHandler.class);
            ssl.handshakeFuture().sync();
            if (!"h2".equals(ssl.applicationProtocol())) {
                throw new AssertionError("ALPN chose " + ssl.applicationProtocol() + ", not h2");
            }
        }
        if (mode == Mode.UPGRADE) {
            DefaultFullHttpRequest upgrade = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/",
                    Unpooled.EMPTY_BUFFER);
            upgrade.headers().set(HttpHeaderNames.HOST, "127.0.0.1:" + port);
            channel.writeAndFlush(upgrade).sync();
            upgradeResponse.get(10, TimeUnit.SECONDS);
        }
    }

    private Http2MultiplexHandler multiplex() {
        return new Http2MultiplexHandler(new ChannelInboundHandlerAdapter(), new StreamCollector(upgradeResponse));
    }

    /** How many streams the server lets this client have open at once (its SETTINGS_MAX_CONCURRENT_STREAMS). */
    int maxConcurrentStreams() {
        return channel.pipeline().get(Http2FrameCodec.class).connection().local().maxActiveStreams();
    }

    /** The answer on stream 1 to the upgrade request ({@code GET /}); only for {@link Mode#UPGRADE}. */
    CompletableFuture<Response> upgradeResponse() {
        return upgradeResponse;
    }

    /** A GOAWAY frame's error code and the last stream the server will still answer. */
    record GoAway(long errorCode, int lastStreamId) {
    }

    /** The GOAWAY the server sends, when it does. */
    CompletableFuture<GoAway> goAway() {
        return goAway;
    }

    /** Completes when the connection has closed. */
    CompletableFuture<Void> closed() {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        channel.closeFuture().addListener(f -> closed.complete(null));
        return closed;
    }

    CompletableFuture<Response> get(String path) throws Exception {
        return send("GET", path, null);
    }

    CompletableFuture<Response> post(String path, byte[] body) throws Exception {
        return send("POST", path, body);
    }

    /**
     * A POST of {@code part} of a body that is announced as longer, on a stream left open; {@code reset} ends it
     * with RST_STREAM (CANCEL) once the answer has begun.
     */
    OpenStream postPart(String path, byte[] part) throws Exception {
        CompletableFuture<Response> response = new CompletableFuture<>();
        StreamCollector collector = new StreamCollector(response);
        Http2StreamChannel stream = open(collector);
        stream.write(new DefaultHttp2HeadersFrame(headers("POST", path), false));
        stream.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(part), false)).sync();
        return new OpenStream(stream, collector, response);
    }

    /** A stream the client has not finished sending on. */
    record OpenStream(Http2StreamChannel stream, StreamCollector collector, CompletableFuture<Response> response) {
        /** Completes once the answer's headers have arrived. */
        CompletableFuture<Integer> status() {
            return collector.status;
        }

        void reset() throws InterruptedException {
            stream.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL)).sync();
        }
    }

    private CompletableFuture<Response> send(String method, String path, byte[] body) throws Exception {
        CompletableFuture<Response> response = new CompletableFuture<>();
        Http2StreamChannel stream = open(new StreamCollector(response));
        stream.write(new DefaultHttp2HeadersFrame(headers(method, path), body == null));
        if (body != null) {
            for (int at = 0; at < body.length; at += CHUNK) {
                int length = Math.min(CHUNK, body.length - at);
                stream.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(body, at, length),
                        at + length == body.length));
            }
        }
        stream.flush();
        return response;
    }

    private Http2StreamChannel open(StreamCollector collector) throws Exception {
        return new Http2StreamChannelBootstrap(channel).handler(collector).open().get(10, TimeUnit.SECONDS);
    }

    private Http2Headers headers(String method, String path) {
        return new DefaultHttp2Headers().method(method).path(path).scheme(mode == Mode.TLS ? "https" : "http")
                .authority("127.0.0.1:" + port);
    }

    @Override
    public void close() throws Exception {
        if (channel != null) {
            channel.close().sync();
        }
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    /** One stream's answer: its status, then its body, to the end of the stream; a reset or a close fails it. */
    static final class StreamCollector extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Response> response;
        private final CompletableFuture<Integer> status = new CompletableFuture<>();
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();

        StreamCollector(CompletableFuture<Response> response) {
            this.response = response;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Http2HeadersFrame headers) {
                    if (headers.headers().status() != null && !status.isDone()) {
                        status.complete(Integer.parseInt(headers.headers().status().toString()));
                    }
                    finishIf(headers.isEndStream());
                } else if (msg instanceof Http2DataFrame data) {
                    byte[] bytes = new byte[data.content().readableBytes()];
                    data.content().readBytes(bytes);
                    body.writeBytes(bytes);
                    finishIf(data.isEndStream());
                } else if (msg instanceof Http2ResetFrame reset) {
                    fail(new IllegalStateException("the server reset the stream: " + reset.errorCode()));
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void finishIf(boolean endStream) {
            if (endStream) {
                response.complete(new Response(status.getNow(-1), body.toByteArray()));
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            fail(new IllegalStateException("the stream closed before its end"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause);
        }

        private void fail(Throwable cause) {
            status.completeExceptionally(cause);
            response.completeExceptionally(cause);
        }
    }

    /** The connection's own events: GOAWAY, and the upgrade turned down. */
    private final class ConnectionEvents extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Http2GoAwayFrame frame) {
                goAway.complete(new GoAway(frame.errorCode(), frame.lastStreamId()));
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event == HttpClientUpgradeHandler.UpgradeEvent.UPGRADE_REJECTED) {
                upgradeResponse.completeExceptionally(new AssertionError("the server turned the h2c upgrade down"));
            }
            ctx.fireUserEventTriggered(event);
        }

        /** A reset by the server (after an idle timeout, say) ends the connection; the tests see it as closed. */
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            goAway.completeExceptionally(new IllegalStateException("the connection closed without GOAWAY"));
            upgradeResponse.completeExceptionally(new IllegalStateException("the connection closed"));
        }
    }
}
