package dev.uringactors.actors.internal.backend;

import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.internal.issue.RingIssuer;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.actors.internal.tcp.TcpRing;

import java.lang.management.ManagementFactory;

/** One ring's figures as users see them: the loop's and its issuer's, with what TCP met on the ring. */
final class RingFigures {
    private RingFigures() {
    }

    /** {@code loop}'s figures; call it on the loop's thread (its CPU time is the calling thread's). */
    static RingLoopStats of(RingLoop loop) {
        RingIssuer issuer = loop.issuer();
        return new RingLoopStats(loop.index(), issuer.generation(), loop.waitStrategy().name(), issuer.ringStats(),
                loop.wakeSignals(), loop.turns(), loop.tasksRun(), issuer.requestsInFlight(), issuer.backlogSize(),
                ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(), loop.stuckTasks(),
                loop.waitStrategy().stats(), TcpRing.figures(loop), issuer.buffers().fixedUses());
    }
}
