package dev.uringactors.samples;

import com.typesafe.config.Config;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Bound;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Unbound;
import dev.uringactors.actors.tcp.TcpSocketOptions;
import dev.uringactors.actors.tcp.UringTcp;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The bind handler the sample servers share: binds, reports the bound address (or the failure), and spawns a
 * handler per connection (made from its {@link Connected}) on the connection's own ring, so that its reactions
 * need no thread hop.
 */
final class TcpServer {
    private TcpServer() {
    }

    static Behavior<Event> bind(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound,
                                Function<Connected, Behavior<Event>> connectionHandler) {
        return bind(address, bound, listener -> { }, connectionHandler);
    }

    /** As above; {@code listener} gets the listener once bound, for a server that unbinds it itself. */
    static Behavior<Event> bind(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound,
                                Consumer<ActorRef<ListenerCommand>> listener,
                                Function<Connected, Behavior<Event>> connectionHandler) {
        return Behaviors.setup(ctx -> {
            try {
                return listening(ctx, address, bound, listener, connectionHandler);
            } catch (RuntimeException e) { // e.g. the rings could not start: say why, rather than time out
                bound.completeExceptionally(e);
                throw e;
            }
        });
    }

    private static Behavior<Event> listening(ActorContext<Event> ctx, InetSocketAddress address,
                                             CompletableFuture<InetSocketAddress> bound,
                                             Consumer<ActorRef<ListenerCommand>> listener,
                                             Function<Connected, Behavior<Event>> connectionHandler) {
        // samples.idle-timeout: a connection that stays silent is closed (the library's default is never).
        Config config = ctx.getSystem().settings().config();
        Optional<Duration> idle = config.getString("samples.idle-timeout").equals("infinite")
                ? Optional.empty() : Optional.of(config.getDuration("samples.idle-timeout"));
        UringTcp.get(ctx.getSystem()).manager().tell(new Bind(ctx.getSelf(), address, 0, false,
                TcpSocketOptions.of(List.of(), idle)));
        UringExtension uring = UringExtension.get(ctx.getSystem());
        return Behaviors.receive(Event.class)
                .onMessage(Bound.class, b -> {
                    listener.accept(b.listener());
                    bound.complete(b.localAddress());
                    return Behaviors.same();
                })
                .onMessage(CommandFailed.class, f -> {
                    bound.completeExceptionally(f.cause());
                    return Behaviors.stopped();
                })
                .onMessage(Connected.class, c -> {
                    ctx.spawnAnonymous(connectionHandler.apply(c), uring.dispatcher(c.ring()));
                    return Behaviors.same();
                })
                .onMessageEquals(Unbound.INSTANCE, () -> { // at shutdown, or every ring closed for good
                    ctx.getLog().info("not listening any more: the rings are closed");
                    return Behaviors.stopped();
                })
                .build();
    }
}
