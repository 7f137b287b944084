package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Connect;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;

/**
 * The TCP manager of a system, behind {@code UringTcp.manager()}: the backend's ({@link RingTcpManager} on the
 * rings, one over Pekko IO's Tcp under the JDK backend), started once.
 */
public final class TcpManager implements Extension {
    private final ActorRef<ManagerCommand> manager;

    private TcpManager(ActorSystem<?> system) {
        this.manager = system.systemActorOf(IoBackends.get(system).tcpManager(), "uring-tcp", Props.empty());
        system.systemActorOf(UndeliveredFiles.create(), "uring-tcp-undelivered-files", Props.empty());
    }

    /** The TCP manager of {@code system}, started on first use. */
    public static TcpManager get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system);
    }

    /** Where {@link Bind} and {@link Connect} go. */
    public ActorRef<ManagerCommand> manager() {
        return manager;
    }

    /** The extension's id, for Pekko's registry. */
    public static final class Id extends ExtensionId<TcpManager> {
        private static final Id INSTANCE = new Id();

        private Id() {
        }

        @Override
        public TcpManager createExtension(ActorSystem<?> system) {
            return new TcpManager(system);
        }
    }
}
