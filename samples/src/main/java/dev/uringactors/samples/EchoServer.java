package dev.uringactors.samples;

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

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * An echo server on the TCP actor protocol. Each connection's handler runs on the connection's own ring and
 * writes back what it receives through an {@link AckedWriter}, so a client that sends without reading cannot make
 * the server buffer without bound.
 */
public final class EchoServer {
    private EchoServer() {
    }

    /** Binds {@code address}; {@code bound} completes with the address, or with the bind's failure. */
    public static Behavior<Event> create(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound) {
        return TcpServer.bind(address, bound, c -> connection(c.connection()));
    }

    static Behavior<Event> connection(ActorRef<ConnectionCommand> connection) {
        return Behaviors.setup(ctx -> {
            // Keep the connection open when the peer shuts down its side: the last replies still go out.
            connection.tell(new Register(ctx.getSelf(), true));
            AckedWriter writer = new AckedWriter(connection);
            return Behaviors.receive(Event.class)
                    .onMessage(Received.class, r -> {
                        writer.write(r.data());
                        return Behaviors.same();
                    })
                    .onMessage(Ack.class, a -> {
                        writer.acknowledged(a);
                        return Behaviors.same();
                    })
                    .onMessage(CommandFailed.class, f -> {
                        ctx.getLog().warn("echo connection: {}", f.cause().getMessage());
                        connection.tell(CloseCommand.ABORT);
                        return Behaviors.same();
                    })
                    .onMessage(PeerClosed.class, p -> {
                        writer.closeWhenWritten(); // every reply still goes out first
                        return Behaviors.same();
                    })
                    .onMessage(ConnectionClosed.class, c -> Behaviors.stopped())
                    .build();
        });
    }
}
