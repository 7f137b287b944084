package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.RingFailedException;
import dev.uringactors.actors.internal.issue.RingIssuer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.time.Duration;

/**
 * Owns one ring's lifecycle, on that ring's thread. The issuer reports a fault (a failed io_uring_enter) with the
 * generation of the ring it came from; the supervisor then answers what is in flight, drains and closes that
 * ring and opens a new one, while {@code uring.supervision} allows. Past that budget the ring stays closed:
 * every later request is refused at once and the loop parks. Either way every actor subscribed on the loop
 * hears of it ({@link RingEvent}). A fault about a ring already replaced is stale and ignored: a failing loop
 * reports on every turn until the supervisor has acted.
 */
public final class RingSupervisor {
    /** What a ring supervisor takes. */
    sealed interface Command {
    }

    /** The ring open as {@code generation} failed. */
    record Fault(Throwable cause, int generation) implements Command {
    }

    private final ActorContext<Command> ctx;
    private final RingLoop loop;
    private final RingIssuer issuer;
    private final Duration drainTimeout;
    private final RestartBudget restarts;

    private RingSupervisor(ActorContext<Command> ctx, RingLoop loop, Duration drainTimeout, RestartBudget restarts) {
        this.ctx = ctx;
        this.loop = loop;
        this.issuer = loop.issuer();
        this.drainTimeout = drainTimeout;
        this.restarts = restarts;
    }

    /** Spawn it on {@code loop}'s dispatcher: it touches the ring. */
    static Behavior<Command> create(RingLoop loop, Duration drainTimeout, RestartBudget restarts) {
        return Behaviors.setup(ctx -> {
            ActorRef<Command> self = ctx.getSelf();
            RingIssuer issuer = loop.issuer();
            issuer.onFault(cause -> self.tell(new Fault(cause, issuer.generation())));
            RingSupervisor supervisor = new RingSupervisor(ctx, loop, drainTimeout, restarts);
            return Behaviors.receive(Command.class)
                    .onMessage(Fault.class, supervisor::fault)
                    .build();
        });
    }

    private Behavior<Command> fault(Fault fault) {
        if (fault.generation() != issuer.generation() || !issuer.isOpen()) {
            return Behaviors.same(); // about a ring replaced or closed already
        }
        if (!restarts.spend()) {
            ctx.getLog().error("ring {} failed more than {} (uring.supervision): it stays closed",
                    loop.index(), restarts, fault.cause());
            RingFailedException gone = new RingFailedException(loop.index(), new IllegalStateException(
                    "it failed more than " + restarts + " and stays closed", fault.cause()));
            issuer.close(gone, drainTimeout);
            loop.publish(new RingEvent.Closed(loop.index(), gone));
            return Behaviors.same();
        }
        RingFailedException failure = new RingFailedException(loop.index(), fault.cause());
        ctx.getLog().error("ring {} failed: answering its requests in flight and opening it anew",
                loop.index(), fault.cause());
        try {
            issuer.restart(failure, drainTimeout);
        } catch (RuntimeException e) {
            ctx.getLog().error("ring {} could not be opened anew: it stays closed", loop.index(), e);
            loop.publish(new RingEvent.Closed(loop.index(), failure));
            return Behaviors.same();
        }
        loop.publish(new RingEvent.Restarted(loop.index(), issuer.generation(), failure));
        return Behaviors.same();
    }
}
