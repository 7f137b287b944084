package dev.uringactors.actors.tcp;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.internal.tcp.TcpManager;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Connect;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * TCP through io_uring for actors, as Pekko's {@code org.apache.pekko.io.Tcp}: {@link #manager()} takes
 * {@link Bind} and {@link Connect}, and the protocol is {@link TcpProtocol}. (For streams:
 * {@link dev.uringactors.actors.stream.UringTcp}.)
 *
 * <p>A bind listens on every ring: by default ({@code uring.tcp.listener = shared}) every ring keeps a
 * multishot accept on one listening socket, and each accepted connection is dealt to the ring holding the fewest
 * of the bind's connections; with {@code reuse-port} each ring has its own SO_REUSEPORT socket, the kernel spreads
 * connections by hash, and each stays on the ring that accepted it. Either way a connection lives on one ring.
 */
public final class UringTcp {
    private final ActorRef<ManagerCommand> manager;

    private UringTcp(ActorRef<ManagerCommand> manager) {
        this.manager = manager;
    }

    /** The TCP side of a typed system's rings. */
    public static UringTcp get(ActorSystem<?> system) {
        UringExtension.get(system); // the rings start with the first use of any of their facades
        return new UringTcp(TcpManager.get(system).manager());
    }

    /** As Pekko's {@code Tcp.get}: from a classic actor system, or anything that provides one. */
    public static UringTcp get(ClassicActorSystemProvider system) {
        return get(Adapter.toTyped(system.classicSystem()));
    }

    /** Where {@link Bind} and {@link Connect} go. */
    public ActorRef<ManagerCommand> manager() {
        return manager;
    }
}
