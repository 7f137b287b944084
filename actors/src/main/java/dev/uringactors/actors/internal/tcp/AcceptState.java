package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.tcp.ListenerStats;
import org.apache.pekko.actor.typed.ActorRef;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one ring's accepting keeps across restarts of its {@link TcpListener}: the credit a pull-mode consumer
 * gave, connections accepted beyond it, the ring each connection was placed on, whether multishot works, and the
 * counters of a bind's {@link ListenerStats}. The listener (on its ring's thread) is the only writer; the counters are read by the
 * bind's supervisor.
 */
final class AcceptState {
    long credit;
    final ArrayDeque<Integer> held = new ArrayDeque<>();
    /** Where each open connection of this listener was placed. */
    final Map<ActorRef<?>, ConnectionSpread.Placement> placed = new HashMap<>();
    boolean multishot;
    final LongAdder accepted = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder rearms = new LongAdder();
    final LongAdder descriptorPauses = new LongAdder();
    final LongAdder restarts = new LongAdder();
    final LongAdder resetBeforeAccepted = new LongAdder();
    /** Incarnations of the listener so far: every one after the first is a restart. */
    int starts;

    AcceptState(boolean multishot) {
        this.multishot = multishot;
    }
}
