package dev.uringactors.samples;

import dev.uringactors.actors.TcpProtocol.Bind;
import dev.uringactors.actors.TcpProtocol.Bound;
import dev.uringactors.actors.TcpProtocol.CommandFailed;
import dev.uringactors.actors.TcpProtocol.Connected;
import dev.uringactors.actors.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.TcpProtocol.Event;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.UringTcp;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The bind handler the sample servers share: binds, reports the bound address (or the failure), and spawns a
 * handler per connection on the connection's own ring, so that its reactions need no thread hop.
 */
final class TcpServer {
    private TcpServer() {
    }

    static Behavior<Event> bind(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound,
                                Function<ActorRef<ConnectionCommand>, Behavior<Event>> connectionHandler) {
        return Behaviors.setup(ctx -> {
            UringTcp.get(ctx.getSystem()).manager().tell(new Bind(ctx.getSelf(), address));
            UringExtension uring = UringExtension.get(ctx.getSystem());
            return Behaviors.receive(Event.class)
                    .onMessage(Bound.class, b -> {
                        bound.complete(b.localAddress());
                        return Behaviors.same();
                    })
                    .onMessage(CommandFailed.class, f -> {
                        bound.completeExceptionally(f.cause());
                        return Behaviors.stopped();
                    })
                    .onMessage(Connected.class, c -> {
                        ctx.spawnAnonymous(connectionHandler.apply(c.connection()), uring.dispatcher(c.ring()));
                        return Behaviors.same();
                    })
                    .build();
        });
    }
}
