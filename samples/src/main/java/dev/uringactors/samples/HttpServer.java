package dev.uringactors.samples;

import com.typesafe.config.Config;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.util.ByteString;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * An HTTP/1.1 "hello world" server on the TCP actor protocol. Requests are parsed to RFC 9112
 * ({@link HttpRequestParser}): keep-alive, pipelining (every complete request in what arrived is answered, in
 * order, with one write), {@code Connection: close}, HTTP/1.0, {@code Expect: 100-continue}, HEAD, and the
 * limits and timeouts of {@code samples.http}. Each connection's handler runs on the connection's ring and
 * writes through an {@link AckedWriter}.
 */
final class HttpServer {
    private static final byte[] HELLO = "Hello, world!\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NOT_FOUND = "not found\n".getBytes(StandardCharsets.US_ASCII);
    private static final ByteString CONTINUE = ByteString.fromString("HTTP/1.1 100 Continue\r\n\r\n");
    /** Methods this server answers; others that HTTP defines get 405, the rest 501. */
    private static final String ALLOW = "GET, HEAD, POST";
    private static final Set<String> OTHER_KNOWN_METHODS = Set.of("PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE",
            "PATCH");

    private HttpServer() {
    }

    /** The Connection header a response to {@code request} needs: close, keep-alive for HTTP/1.0, or none. */
    static String connectionHeader(HttpRequestParser.Request request) {
        return !request.keepAlive() ? "Connection: close\r\n"
                : request.http11() ? "" : "Connection: keep-alive\r\n"; // an HTTP/1.0 client asked to keep it
    }

    /**
     * Starts the request-head clock when what arrived leaves a head incomplete, and stops it otherwise: a whole
     * head in one read costs no timer.
     */
    static void timeHead(HttpRequestParser parser, TimerScheduler<Object> timers, Duration headTimeout) {
        if (!parser.inPartialHead()) {
            timers.cancel(HeadTimeout.INSTANCE);
        } else if (!timers.isTimerActive(HeadTimeout.INSTANCE)) {
            timers.startSingleTimer(HeadTimeout.INSTANCE, headTimeout);
        }
    }

    /** Binds {@code address}; {@code bound} completes with the address, or with the bind's failure. */
    static Behavior<Event> create(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound) {
        return TcpServer.bind(address, bound, c -> connection(c.connection()));
    }

    static Behavior<Event> connection(ActorRef<ConnectionCommand> connection) {
        return Behaviors.<Object>setup(ctx -> Behaviors.withTimers(timers -> {
            Config http = ctx.getSystem().settings().config().getConfig("samples.http");
            // Keep the connection open when the peer shuts down its side: the last responses still go out.
            connection.tell(new Register(ctx.getSelf().narrow(), true));
            return new Connection(connection, timers, parser(http), http.getDuration("head-timeout")).behavior();
        })).narrow();
    }

    /** A parser with the limits of {@code samples.http}. */
    static HttpRequestParser parser(Config http) {
        return new HttpRequestParser(new HttpRequestParser.Limits(http.getBytes("max-head").intValue(),
                http.getBytes("max-target").intValue(), http.getBytes("max-body")));
    }

    /** The request head took longer than {@code samples.http.head-timeout}. */
    enum HeadTimeout {
        INSTANCE
    }

    /**
     * One connection, in two phases: open (it parses what arrives and answers every complete request), then
     * closing (what was answered is written, then the connection closes; nothing more is read or answered).
     */
    private static final class Connection {
        private final ActorRef<ConnectionCommand> connection;
        private final TimerScheduler<Object> timers;
        private final HttpRequestParser parser;
        private final Duration headTimeout;
        private final AckedWriter writer;
        private final HttpResponses responses = new HttpResponses();
        private String helloDate;
        private ByteString hello;

        Connection(ActorRef<ConnectionCommand> connection, TimerScheduler<Object> timers, HttpRequestParser parser,
                   Duration headTimeout) {
            this.connection = connection;
            this.timers = timers;
            this.parser = parser;
            this.headTimeout = headTimeout;
            this.writer = new AckedWriter(connection);
        }

        Behavior<Object> behavior() {
            return Behaviors.receive(Object.class)
                    .onMessage(Received.class, this::received)
                    .onMessage(HeadTimeout.class,
                            t -> close(responses.text(408, HttpResponses.NO_BODY, "Connection: close\r\n")))
                    .onMessage(PeerClosed.class, p -> close(ByteString.emptyByteString()))
                    .onMessage(Ack.class, this::acknowledged)
                    .onMessage(CommandFailed.class, this::failed)
                    .onMessage(ConnectionClosed.class, c -> Behaviors.stopped())
                    .build();
        }

        /** What is written drains; anything else that still arrives is not answered. */
        private Behavior<Object> closing() {
            return Behaviors.receive(Object.class)
                    .onMessage(Ack.class, this::acknowledged)
                    .onMessage(CommandFailed.class, this::failed)
                    .onMessage(ConnectionClosed.class, c -> Behaviors.stopped())
                    .onAnyMessage(m -> Behaviors.same())
                    .build();
        }

        private Behavior<Object> acknowledged(Ack ack) {
            writer.acknowledged(ack);
            return Behaviors.same();
        }

        private Behavior<Object> failed(CommandFailed failed) {
            connection.tell(CloseCommand.ABORT);
            return Behaviors.same();
        }

        private ByteString answer(HttpRequestParser.Request request) {
            if (request.errorStatus() != 0) {
                return responses.text(request.errorStatus(), HttpResponses.NO_BODY, "Connection: close\r\n");
            }
            String connection = connectionHeader(request);
            boolean head = request.method().equals("HEAD");
            if (!head && !request.method().equals("GET") && !request.method().equals("POST")) {
                boolean known = OTHER_KNOWN_METHODS.contains(request.method());
                return responses.text(known ? 405 : 501, HttpResponses.NO_BODY,
                        (known ? "Allow: " + ALLOW + "\r\n" : "") + connection);
            }
            String path = request.target();
            boolean hello = path.equals("/") || path.startsWith("/?");
            if (hello && !head && connection.isEmpty()) {
                return helloKeepAlive();
            }
            ByteString full = hello ? responses.text(200, HELLO, connection)
                    : responses.text(404, NOT_FOUND, connection);
            // HEAD: the same head (Content-Length included), no body.
            return head ? full.take(full.size() - (hello ? HELLO.length : NOT_FOUND.length)) : full;
        }

        /** The commonest answer, built again only when the Date header changes (once a second at most). */
        private ByteString helloKeepAlive() {
            String date = responses.date();
            if (date != helloDate) {
                helloDate = date;
                hello = responses.text(200, HELLO, "");
            }
            return hello;
        }

        private Behavior<Object> received(Received r) {
            parser.append(r.data().toArrayUnsafe());
            ByteString out = ByteString.emptyByteString(); // one answer as it is; pipelined ones joined, not copied
            boolean last = false;
            HttpRequestParser.Request request;
            while (!last && (request = parser.next()) != null) {
                out = out.concat(answer(request));
                last = !request.keepAlive();
            }
            if (parser.takeContinueWanted()) {
                out = out.concat(CONTINUE);
            }
            if (last) {
                return close(out); // what is pipelined behind a last request is not answered
            }
            if (!out.isEmpty()) {
                writer.write(out);
            }
            timeHead(parser, timers, headTimeout);
            return Behaviors.same();
        }

        /** Sends {@code last} (may be empty) after everything before it, then closes. */
        private Behavior<Object> close(ByteString last) {
            timers.cancelAll();
            if (!last.isEmpty()) {
                writer.write(last);
            }
            writer.closeWhenWritten();
            return closing();
        }
    }
}
