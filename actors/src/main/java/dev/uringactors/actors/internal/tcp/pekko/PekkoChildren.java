package dev.uringactors.actors.internal.tcp.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.SupervisorStrategy;

/**
 * The parent of the JDK backend's listeners and outgoing connections (classic actors, which a typed parent would
 * restart on a failure, announcing a connection or binding a second time): it starts each {@link Props} it is
 * sent, and stops a child that fails.
 */
final class PekkoChildren extends AbstractActor {
    static Props props() {
        return Props.create(PekkoChildren.class, PekkoChildren::new);
    }

    @Override
    public SupervisorStrategy supervisorStrategy() {
        return SupervisorStrategy.stoppingStrategy();
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder().match(Props.class, props -> getContext().actorOf(props)).build();
    }
}
