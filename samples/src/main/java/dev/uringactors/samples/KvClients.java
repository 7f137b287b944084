package dev.uringactors.samples;

import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The node's client connections, ended in order at shutdown: in {@code service-unbind} the listener is unbound
 * (no new client), in {@code service-requests-done} each connection is finished as if its client had ended its
 * stream (it reads no more commands, and closes once the replies of those it read are out), and the phase ends
 * when all have closed. Only then does Cluster Sharding stop the shards, with no request still coming: one sent
 * to a region shutting down is buffered, and the region waits for its buffer until its phase times out.
 */
final class KvClients {
    interface Command {
    }

    /** A connection handler has started. */
    record Opened(ActorRef<Event> connection) implements Command {
    }

    private record Finish(ActorRef<Done> replyTo) implements Command {
    }

    private KvClients() {
    }

    /** Tracks the connections told to it, and ends them and the listener's accepting at shutdown. */
    static Behavior<Command> create(CompletableFuture<ActorRef<ListenerCommand>> listener) {
        return Behaviors.setup(ctx -> {
            ActorSystem<Void> system = ctx.getSystem();
            CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
            shutdown.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "kv-unbind", () -> listener.isDone()
                    ? AskPattern.<ListenerCommand, Event>ask(listener.join(), Unbind::new,
                            timeout(shutdown, CoordinatedShutdown.PhaseServiceUnbind()), system.scheduler())
                            .thenApply(unbound -> Done.getInstance())
                    : CompletableFuture.completedFuture(Done.getInstance())); // never bound: nothing to unbind
            ActorRef<Command> self = ctx.getSelf();
            shutdown.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "kv-finish-connections",
                    () -> AskPattern.ask(self, Finish::new,
                            timeout(shutdown, CoordinatedShutdown.PhaseServiceRequestsDone()), system.scheduler()));
            return tracking(new HashSet<>(), new ArrayList<>());
        });
    }

    private static Duration timeout(CoordinatedShutdown shutdown, String phase) {
        return Duration.ofMillis(shutdown.timeout(phase).toMillis());
    }

    /** {@code waiting}: who asked for the connections to finish (none before the shutdown). */
    private static Behavior<Command> tracking(Set<ActorRef<Event>> open, List<ActorRef<Done>> waiting) {
        return Behaviors.setup(ctx -> Behaviors.receive(Command.class)
                .onMessage(Opened.class, o -> {
                    open.add(o.connection());
                    ctx.watch(o.connection());
                    if (!waiting.isEmpty()) {
                        o.connection().tell(PeerClosed.INSTANCE); // accepted just before the unbind
                    }
                    return Behaviors.same();
                })
                .onMessage(Finish.class, f -> {
                    waiting.add(f.replyTo());
                    open.forEach(c -> c.tell(PeerClosed.INSTANCE));
                    return doneIfClosed(open, waiting);
                })
                .onSignal(Terminated.class, t -> {
                    open.remove(t.getRef());
                    return doneIfClosed(open, waiting);
                })
                .build());
    }

    private static Behavior<Command> doneIfClosed(Set<ActorRef<Event>> open, List<ActorRef<Done>> waiting) {
        if (open.isEmpty()) {
            waiting.forEach(w -> w.tell(Done.getInstance()));
            waiting.clear();
        }
        return Behaviors.same();
    }
}
