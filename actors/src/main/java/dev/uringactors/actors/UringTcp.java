package dev.uringactors.actors;

import dev.uringactors.actors.TcpProtocol.Bind;
import dev.uringactors.actors.TcpProtocol.CommandFailed;
import dev.uringactors.actors.TcpProtocol.Connect;
import dev.uringactors.actors.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.TcpProtocol.ManagerCommand;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Sockets;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * TCP through io_uring: {@code UringTcp.get(system).manager()} takes {@link Bind} and {@link Connect} (see
 * {@link TcpProtocol}). A bind listens on every ring: with {@code uring.tcp.listener = reuse-port} each ring has
 * its own SO_REUSEPORT socket, so the kernel spreads connections and none crosses threads; with {@code shared}
 * every ring keeps a multishot accept on one socket.
 */
public final class UringTcp implements Extension {
    private final ActorRef<ManagerCommand> manager;
    private final UringExtension uring;

    private UringTcp(ActorSystem<?> system) {
        this.uring = UringExtension.get(system);
        this.manager = system.systemActorOf(manager(uring), "uring-tcp",
                org.apache.pekko.actor.typed.Props.empty());
    }

    public static UringTcp get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system);
    }

    /** Where {@link Bind} and {@link Connect} go. */
    public ActorRef<ManagerCommand> manager() {
        return manager;
    }

    UringExtension uring() {
        return uring;
    }

    private static Behavior<ManagerCommand> manager(UringExtension uring) {
        UringSettings.Tcp tcp = uring.settings().tcp();
        return Behaviors.setup(ctx -> Behaviors.receive(ManagerCommand.class)
                .onMessage(Bind.class, b -> {
                    bind(ctx, uring, tcp, b);
                    return Behaviors.same();
                })
                .onMessage(Connect.class, c -> {
                    int ring = uring.nextRing();
                    ctx.spawnAnonymous(TcpConnection.connecting(uring.loop(ring), tcp, c), uring.dispatcher(ring));
                    return Behaviors.same();
                })
                .build());
    }

    private static void bind(ActorContext<ManagerCommand> ctx, UringExtension uring, UringSettings.Tcp tcp, Bind b) {
        int backlog = b.backlog() > 0 ? b.backlog() : tcp.backlog();
        boolean reusePort = tcp.listener() == UringSettings.ListenerMode.REUSE_PORT;
        int rings = uring.ringCount();
        List<Integer> fds = new ArrayList<>();
        InetSocketAddress bound;
        try {
            fds.add(Sockets.listen(b.localAddress(), backlog, reusePort));
            bound = Sockets.localAddress(fds.get(0));
            for (int i = 1; i < rings && reusePort; i++) {
                fds.add(Sockets.listen(bound, backlog, true)); // same port: the kernel spreads connections
            }
            if (tcp.noDelay()) {
                for (int fd : fds) { // accepted sockets inherit it: no setsockopt per connection
                    Sockets.setOption(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
                }
            }
        } catch (UringException e) {
            fds.forEach(Sockets::close);
            b.handler().tell(new CommandFailed(b, e));
            return;
        }
        List<ActorRef<ListenerCommand>> listeners = new ArrayList<>();
        for (int i = 0; i < rings; i++) {
            int fd = reusePort ? fds.get(i) : fds.get(0);
            listeners.add(ctx.spawnAnonymous(TcpListener.create(uring.loop(i), tcp, fd, reusePort, b.handler(),
                    b.pullMode()), uring.dispatcher(i)));
        }
        ActorRef<ListenerCommand> group = ctx.spawnAnonymous(
                TcpListenerGroup.create(listeners, reusePort ? -1 : fds.get(0)));
        b.handler().tell(new TcpProtocol.Bound(bound, group));
    }

    public static final class Id extends ExtensionId<UringTcp> {
        private static final Id INSTANCE = new Id();

        private Id() {
        }

        @Override
        public UringTcp createExtension(ActorSystem<?> system) {
            return new UringTcp(system);
        }
    }
}
