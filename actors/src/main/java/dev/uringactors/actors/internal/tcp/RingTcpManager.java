package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.Connect;
import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The TCP manager on the rings: a bind opens the listening socket(s) and spawns their {@link TcpListenerGroup}; a
 * connect spawns an outgoing connection ({@link RingSocket}) on the next ring.
 */
public final class RingTcpManager {
    private RingTcpManager() {
    }

    /** The manager's behaviour over {@code rings}. */
    public static Behavior<ManagerCommand> create(Rings rings) {
        return create(rings, TcpInterceptors.NONE);
    }

    /** The manager's behaviour over {@code rings}, its listeners and connections wrapped in {@code wrap}. */
    public static Behavior<ManagerCommand> create(Rings rings, TcpInterceptors wrap) {
        UringSettings.Tcp tcp = rings.settings().tcp();
        return Behaviors.setup(ctx -> Behaviors.receive(ManagerCommand.class)
                .onMessage(Bind.class, b -> {
                    bind(ctx, rings, tcp, b, wrap);
                    return Behaviors.same();
                })
                .onMessage(Connect.class, c -> {
                    int ring = rings.nextRing();
                    ctx.spawnAnonymous(wrap.connection().apply(RingSocket.connecting(rings.loop(ring),
                            c.options().over(tcp), c)), rings.dispatcher(ring));
                    return Behaviors.same();
                })
                .build());
    }

    private static void bind(ActorContext<ManagerCommand> ctx, Rings rings, UringSettings.Tcp defaults,
                             Bind b, TcpInterceptors wrap) {
        UringSettings.Tcp tcp = b.options().over(defaults);
        int backlog = tcp.backlogOr(b.backlog());
        boolean reusePort = tcp.listener() == UringSettings.ListenerMode.REUSE_PORT;
        List<Integer> fds = new ArrayList<>();
        InetSocketAddress bound;
        try {
            fds.add(Sockets.listen(b.localAddress(), backlog, reusePort));
            bound = Sockets.localAddress(fds.get(0));
            for (int i = 1; i < rings.count() && reusePort; i++) {
                fds.add(Sockets.listen(bound, backlog, true)); // same port: the kernel spreads connections
            }
            for (int fd : fds) { // accepted sockets inherit these: no setsockopt per connection
                if (tcp.noDelay()) {
                    Sockets.setOption(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
                }
                b.options().applyTo(fd);
            }
        } catch (UringException | IllegalArgumentException e) { // a kernel's refusal, an unresolved address
            fds.forEach(Descriptors::close);
            b.handler().tell(new CommandFailed(b, e));
            return;
        }
        ActorRef<ListenerCommand> group = ctx.spawnAnonymous(
                TcpListenerGroup.create(rings, tcp, fds, b.handler(), b.pullMode(), wrap));
        b.handler().tell(new TcpProtocol.Bound(bound, group));
    }
}
