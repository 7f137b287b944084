package dev.uringactors.bench;

import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.file.RingProtocol;
import org.apache.pekko.Done;

import java.util.Locale;

/**
 * NOP requests from an actor on the ring's own thread, each answered as a message that triggers the next:
 * what the actor layer costs over the bare ring ({@code nop}).
 */
final class ActorNopBench {
    private ActorNopBench() {
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 5);
        int depth = args.intValue("depth", 32);
        String wait = args.string("wait", "interrupt");
        Tally tally = new Tally();
        try (BenchSystem bench = new BenchSystem("wait-strategy = " + wait)) {
            bench.spawnOnRing(LoadActor.<Done>create(bench.files.ring(0), RingProtocol.Nop::new, depth, tally),
                    "nop-load");
            RingLoopStats before = bench.stats();
            double rate = BenchSystem.rate(tally::completed, 2, seconds);
            RingLoopStats after = bench.stats();
            tally.checkNoFailures();
            long ops = after.ringStats().submitted() - before.ringStats().submitted();
            long enters = after.ringStats().enters() - before.ringStats().enters();
            System.out.printf(Locale.ROOT, "actor-nop depth=%d: %.1f SQEs per io_uring_enter, %d eventfd wakes%n",
                    depth, ops / (double) Math.max(1, enters), after.wakeSignals() - before.wakeSignals());
            System.out.printf(Locale.ROOT, "actor-nop: %.0f ops/s%n", rate);
            args.figures("actor-nop").record(wait.equals("interrupt") ? "uring-actors" : "uring-actors (" + wait + ")",
                    "depth", depth, "NOPs/s", rate);
        }
    }
}
