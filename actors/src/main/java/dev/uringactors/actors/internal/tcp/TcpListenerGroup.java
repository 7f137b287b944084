package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.loop.RingEvent;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.actors.tcp.ListenerStats;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.GetListenerStats;
import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import dev.uringactors.actors.tcp.TcpProtocol.ResumeAccepting;
import dev.uringactors.actors.tcp.TcpProtocol.Unbind;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Descriptors;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One bind, and what its handler sees as the listener: it owns the listening socket(s) and supervises one
 * {@link TcpListener} per ring. A listener that fails is restarted with back-off (from {@code
 * uring.tcp.accept-backoff} up to 30 times that), keeping its connections; the sockets and their backlogs stay,
 * so connections that arrive meanwhile are accepted after the restart. ResumeAccepting goes to every ring;
 * Unbind unbinds them all, closes the sockets once no ring accepts on them, and is answered once. The group lives
 * on until its listeners, and so their connections, have stopped.
 */
public final class TcpListenerGroup {
    sealed interface Internal extends ListenerCommand permits RingUnbound {
    }

    /** A ring's listener has unbound, stopped, or did not answer the unbind in time. */
    record RingUnbound(ActorRef<ListenerCommand> listener) implements Internal {
    }

    /** How long a ring's listener may take to cancel its accept. */
    private static final Duration UNBIND_TIMEOUT = Duration.ofSeconds(10);

    private final ActorContext<ListenerCommand> ctx;
    private final Rings rings;
    private final ActorRef<Event> handler;
    /** The listeners still accepting, each with the index of its socket in {@link #fds}. */
    private final Map<ActorRef<ListenerCommand>, Integer> listening = new LinkedHashMap<>();
    private final List<AcceptState> states = new ArrayList<>();
    /** The listening sockets, each closed once: when no listener accepts on it, or the group ends. */
    private final List<Integer> fds;
    private final boolean[] closed;
    /** Who asked for the unbind under way, each answered once it is done; empty when none is under way. */
    private final List<ActorRef<Event>> unbindReplies = new ArrayList<>();
    /** During an unbind: the listeners that have not answered it yet. */
    private final Set<ActorRef<ListenerCommand>> unbinding = new HashSet<>();
    /** Answers (or time-outs) of the unbind asks still to come: the group waits for them before it stops. */
    private int answersDue;
    /** No ring accepts any more and Unbound was sent: a later Unbind is answered at once. */
    private boolean over;
    /** Per ring: marks it closed in the spread when it closes, before its listener hears of it. */
    private final List<Consumer<RingEvent>> ringEnds = new ArrayList<>();

    private TcpListenerGroup(ActorContext<ListenerCommand> ctx, Rings rings, ActorRef<Event> handler,
                             List<Integer> fds) {
        this.ctx = ctx;
        this.rings = rings;
        this.handler = handler;
        this.fds = List.copyOf(fds);
        this.closed = new boolean[fds.size()];
    }

    /**
     * A bind on {@code fds}: one socket all rings accept on, or one per ring (SO_REUSEPORT), its listeners and
     * connections wrapped in {@code wrap}. The group closes the sockets, whatever happens.
     */
    static Behavior<ListenerCommand> create(Rings rings, UringSettings.Tcp tcp, List<Integer> fds,
                                            ActorRef<Event> handler, boolean pullMode, TcpInterceptors wrap) {
        return Behaviors.setup(ctx -> {
            TcpListenerGroup group = new TcpListenerGroup(ctx, rings, handler, fds);
            Duration minBackoff = tcp.acceptBackoff();
            ConnectionSpread spread = new ConnectionSpread(rings, fds.size() == 1);
            for (int i = 0; i < rings.count(); i++) {
                // On the ring's thread as it closes: the other listeners deal it nothing from then on, not only
                // once its own listener has taken RingClosed from its mailbox. (A ring closed before this
                // subscription is marked by its listener, which finds it closed.)
                int ring = i;
                Consumer<RingEvent> ended = RingEvent.whenClosed(closed -> spread.ringClosed(ring));
                rings.loop(i).subscribe(ended);
                group.ringEnds.add(ended);
                AcceptState state = new AcceptState(tcp.accept() == UringSettings.AcceptMode.MULTISHOT);
                int socket = fds.size() == 1 ? 0 : i;
                Behavior<ListenerCommand> listener = Behaviors.supervise(wrap.listener().apply(TcpListener.create(
                                rings.loop(i), spread, tcp, fds.get(socket), handler, pullMode, state,
                                wrap.connection())))
                        .onFailure(TcpListener.AcceptFailedException.class, SupervisorStrategy
                                .restartWithBackoff(minBackoff, minBackoff.multipliedBy(30), 0.2)
                                .withStopChildren(false));
                ActorRef<ListenerCommand> ref = ctx.spawnAnonymous(listener, rings.dispatcher(i));
                ctx.watch(ref);
                group.listening.put(ref, socket);
                group.states.add(state);
            }
            return group.behavior();
        });
    }

    private Behavior<ListenerCommand> behavior() {
        return Behaviors.receive(ListenerCommand.class)
                .onMessage(ResumeAccepting.class, r -> {
                    listening.keySet().forEach(l -> l.tell(r));
                    return Behaviors.same();
                })
                .onMessage(Unbind.class, this::unbind)
                .onMessage(GetListenerStats.class, g -> {
                    g.replyTo().tell(stats());
                    return Behaviors.same();
                })
                .onMessage(RingUnbound.class, r -> {
                    answersDue--;
                    return ringUnbound(r.listener());
                })
                .onSignal(Terminated.class, this::listenerStopped)
                .onSignal(PostStop.class, s -> {
                    for (int i = 0; i < ringEnds.size(); i++) {
                        rings.loop(i).unsubscribe(ringEnds.get(i));
                    }
                    closeSockets(); // closed already after an unbind; else the system is shutting down
                    return Behaviors.same();
                })
                .build();
    }

    private ListenerStats stats() {
        long accepted = 0;
        long errors = 0;
        long rearms = 0;
        long pauses = 0;
        long restarts = 0;
        long resets = 0;
        for (AcceptState s : states) {
            resets += s.resetBeforeAccepted.sum();
            accepted += s.accepted.sum();
            errors += s.errors.sum();
            rearms += s.rearms.sum();
            pauses += s.descriptorPauses.sum();
            restarts += s.restarts.sum();
        }
        return new ListenerStats(accepted, errors, rearms, pauses, restarts, resets);
    }

    /**
     * A listener stopped: after an unbind, once its connections closed; before, because its ring stays closed.
     * Then no ring accepts on its socket any more (if it had its own, SO_REUSEPORT would keep sending it
     * connections): close it, and when no ring accepts at all, the bind is over.
     */
    private Behavior<ListenerCommand> listenerStopped(Terminated t) {
        @SuppressWarnings("unchecked") // the group watches only its listeners
        ActorRef<ListenerCommand> listener = (ActorRef<ListenerCommand>) (ActorRef<?>) t.getRef();
        Integer socket = listening.remove(listener);
        if (!unbindReplies.isEmpty()) {
            return ringUnbound(listener); // a stopped listener has nothing left to unbind
        }
        if (socket != null) {
            if (!listening.containsValue(socket)) {
                closeSocket(socket);
            }
            if (listening.isEmpty()) {
                over = true;
                handler.tell(TcpProtocol.Unbound.INSTANCE);
            }
        }
        return stopWhenDone();
    }

    /** The group goes once its listeners have stopped and every answer it asked for has come. */
    private Behavior<ListenerCommand> stopWhenDone() {
        return ctx.getChildren().isEmpty() && answersDue == 0 ? Behaviors.stopped() : Behaviors.same();
    }

    private Behavior<ListenerCommand> unbind(Unbind u) {
        if (over) {
            u.replyTo().tell(TcpProtocol.Unbound.INSTANCE);
        } else if (unbindReplies.isEmpty()) {
            unbindReplies.add(u.replyTo());
            unbinding.addAll(listening.keySet());
            answersDue = listening.size();
            for (ActorRef<ListenerCommand> l : listening.keySet()) {
                ctx.ask(Event.class, l, UNBIND_TIMEOUT, Unbind::new, (unbound, failure) -> new RingUnbound(l));
            }
            if (unbinding.isEmpty()) {
                return unbound();
            }
        } else {
            unbindReplies.add(u.replyTo()); // answered with the first
        }
        return Behaviors.same();
    }

    private Behavior<ListenerCommand> ringUnbound(ActorRef<ListenerCommand> listener) {
        if (unbinding.remove(listener) && unbinding.isEmpty() && !over) {
            return unbound();
        }
        return over ? stopWhenDone() : Behaviors.same();
    }

    private Behavior<ListenerCommand> unbound() {
        over = true;
        closeSockets();
        unbindReplies.forEach(replyTo -> replyTo.tell(TcpProtocol.Unbound.INSTANCE));
        return stopWhenDone();
    }

    private void closeSockets() {
        for (int i = 0; i < fds.size(); i++) {
            closeSocket(i);
        }
    }

    private void closeSocket(int index) {
        if (!closed[index]) {
            closed[index] = true;
            Descriptors.close(fds.get(index));
        }
    }
}
