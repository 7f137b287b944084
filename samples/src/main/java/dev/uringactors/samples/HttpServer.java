package dev.uringactors.samples;

import dev.uringactors.actors.TcpProtocol.Ack;
import dev.uringactors.actors.TcpProtocol.CloseCommand;
import dev.uringactors.actors.TcpProtocol.CommandFailed;
import dev.uringactors.actors.TcpProtocol.ConnectionClosed;
import dev.uringactors.actors.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.TcpProtocol.Event;
import dev.uringactors.actors.TcpProtocol.PeerClosed;
import dev.uringactors.actors.TcpProtocol.Received;
import dev.uringactors.actors.TcpProtocol.Register;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.util.ByteString;
import org.apache.pekko.util.ByteStringBuilder;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * An HTTP/1.1 "hello world" server on the TCP actor protocol: keep-alive, pipelining (every complete request in
 * what arrived is answered, in order, with one write), {@code Connection: close} and HTTP/1.0 honoured. Each
 * connection's handler runs on the connection's ring and writes through an {@link AckedWriter}.
 */
final class HttpServer {
    private static final byte[] HELLO = "Hello, world!\n".getBytes(StandardCharsets.US_ASCII);
    private static final ByteString OK_KEEP_ALIVE = response(200, "OK", HELLO, true);
    private static final ByteString OK_CLOSE = response(200, "OK", HELLO, false);

    private HttpServer() {
    }

    static ByteString response(int status, String reason, byte[] body, boolean keepAlive) {
        String head = "HTTP/1.1 " + status + " " + reason + "\r\nServer: uring-actors\r\n"
                + "Content-Type: text/plain\r\nContent-Length: " + body.length + "\r\n"
                + (keepAlive ? "" : "Connection: close\r\n") + "\r\n";
        return ByteString.fromString(head, StandardCharsets.US_ASCII).concat(ByteString.fromArray(body));
    }

    private static ByteString answer(HttpRequestParser.Request request) {
        return switch (request.errorStatus()) {
            case 0 -> !request.target().equals("/") && !request.target().startsWith("/?")
                    ? response(404, "Not Found", "not found\n".getBytes(StandardCharsets.US_ASCII),
                    request.keepAlive())
                    : request.keepAlive() ? OK_KEEP_ALIVE : OK_CLOSE;
            case 431 -> response(431, "Request Header Fields Too Large", new byte[0], false);
            case 501 -> response(501, "Not Implemented", new byte[0], false);
            default -> response(400, "Bad Request", new byte[0], false);
        };
    }

    /** Binds {@code address}; {@code bound} completes with the address, or with the bind's failure. */
    static Behavior<Event> create(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound) {
        return TcpServer.bind(address, bound, HttpServer::connection);
    }

    static Behavior<Event> connection(ActorRef<ConnectionCommand> connection) {
        return Behaviors.setup(ctx -> {
            // Keep the connection open when the peer shuts down its side: the last responses still go out.
            connection.tell(new Register(ctx.getSelf(), true));
            return new Connection(connection).behavior();
        });
    }

    /** One connection: parses what arrives, answers every complete request, closes when a request asks to. */
    private static final class Connection {
        private final ActorRef<ConnectionCommand> connection;
        private final HttpRequestParser parser = new HttpRequestParser();
        private final AckedWriter writer;
        private boolean closing;

        Connection(ActorRef<ConnectionCommand> connection) {
            this.connection = connection;
            this.writer = new AckedWriter(connection);
        }

        Behavior<Event> behavior() {
            return Behaviors.receive(Event.class)
                    .onMessage(Received.class, this::received)
                    .onMessage(Ack.class, a -> {
                        writer.acknowledged(a);
                        return Behaviors.same();
                    })
                    .onMessage(CommandFailed.class, f -> {
                        connection.tell(CloseCommand.ABORT);
                        return Behaviors.same();
                    })
                    .onMessage(PeerClosed.class, p -> {
                        closing = true;
                        writer.closeWhenWritten();
                        return Behaviors.same();
                    })
                    .onMessage(ConnectionClosed.class, c -> Behaviors.stopped())
                    .build();
        }

        private Behavior<Event> received(Received r) {
            if (closing) {
                return Behaviors.same();
            }
            parser.append(r.data().toArrayUnsafe());
            ByteStringBuilder out = new ByteStringBuilder();
            HttpRequestParser.Request request;
            while (!closing && (request = parser.next()) != null) {
                out.append(answer(request));
                closing = !request.keepAlive();
            }
            if (out.length() > 0) {
                writer.write(out.result());
            }
            if (closing) {
                writer.closeWhenWritten();
            }
            return Behaviors.same();
        }
    }
}
