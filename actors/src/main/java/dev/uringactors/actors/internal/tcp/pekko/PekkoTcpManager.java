package dev.uringactors.actors.internal.tcp.pekko;

import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Connect;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.util.function.IntSupplier;

/**
 * The TCP manager under the JDK backend: a bind becomes a {@link PekkoListener} over Pekko IO's Tcp, a connect a
 * connection over a {@link PekkoSocket}; both speak this library's protocol to the handlers. Options a ring's socket would get
 * from {@code uring.tcp} are given to Pekko's (backlog, TCP_NODELAY; the idle and register timeouts are kept by
 * the connections). One listening socket per bind: {@code uring.tcp.listener} and {@code accept} are for rings.
 */
public final class PekkoTcpManager {
    private PekkoTcpManager() {
    }

    /** The manager's behaviour with {@code settings}; {@code nextRing} deals ring indices to connections. */
    public static Behavior<ManagerCommand> create(UringSettings settings, IntSupplier nextRing) {
        UringSettings.Tcp defaults = settings.tcp();
        return Behaviors.setup(ctx -> {
            ActorRef children = Adapter.actorOf(ctx, PekkoChildren.props(), "children");
            return Behaviors.receive(ManagerCommand.class)
                    .onMessage(Bind.class, b -> {
                        children.tell(PekkoListener.props(b, b.options().over(defaults), nextRing,
                                settings.maxIoSize()), ActorRef.noSender());
                        return Behaviors.same();
                    })
                    .onMessage(Connect.class, c -> {
                        ctx.spawnAnonymous(PekkoSocket.outgoing(c, nextRing.getAsInt(), c.options().over(defaults),
                                settings.maxIoSize()));
                        return Behaviors.same();
                    })
                    .build();
        });
    }
}
