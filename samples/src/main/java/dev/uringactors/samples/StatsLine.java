package dev.uringactors.samples;

import dev.uringactors.actors.Backend;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.SqPollStats;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The line a server prints every {@code --stats} interval: per ring, what it did per second since the last
 * line (completions, SQEs per enter, wake-ups from other threads) and what it holds now (requests in flight,
 * requests waiting for room in the SQ, TCP connections), with CQ overflows since the start, which should stay 0.
 * Under the JDK backend it says which backend runs instead.
 */
final class StatsLine {
    private final Map<Integer, RingLoopStats> last = new HashMap<>();
    private final Backend backend;
    private long lastNanos;

    /** Lines for a server on {@code backend}: under the JDK's, there are no ring counters to show, and it says so. */
    StatsLine(Backend backend) {
        this.backend = backend;
    }

    /** The line for {@code now}; the first one has no rates yet. Called from whichever thread has the stats. */
    synchronized String next(List<RingLoopStats> now, long nanos) {
        double seconds = lastNanos == 0 ? Double.NaN : (nanos - lastNanos) / 1e9;
        lastNanos = nanos;
        StringBuilder line = new StringBuilder("stats");
        if (backend == Backend.JDK) {
            return line.append(" backend jdk: no ring counters (Pekko's Tcp and JDK file channels do the I/O)")
                    .toString();
        }
        for (RingLoopStats ring : now) {
            RingLoopStats before = last.put(ring.ring(), ring);
            long completions = ring.ringStats().completions() - (before == null ? 0 : before.ringStats().completions());
            long enters = ring.ringStats().enters() - (before == null ? 0 : before.ringStats().enters());
            long submitted = ring.ringStats().submitted() - (before == null ? 0 : before.ringStats().submitted());
            long wakes = ring.wakeSignals() - (before == null ? 0 : before.wakeSignals());
            line.append(String.format(Locale.ROOT, "%s ring %d: %s completions/s, %.1f SQEs/enter, %s wake-ups/s, "
                            + "%d in flight, %d backlog, %d CQ overflows, %d connections",
                    line.length() > 5 ? ";" : "",
                    ring.ring(), rate(completions, seconds), enters == 0 ? 0.0 : (double) submitted / enters,
                    rate(wakes, seconds), ring.requestsInFlight(), ring.backlog(),
                    ring.ringStats().overflowFlushes(), ring.tcp().openConnections()));
        }
        return line.toString();
    }

    /** The line of an SQPOLL thread (with {@code uring.sqpoll.enabled}), over its own last second. */
    static String of(SqPollStats t) {
        return String.format(Locale.ROOT, "sqpoll thread %d (group %d): %.0f%% of a CPU, %s, %.0f wake-ups/s, "
                        + "rings %s", t.threadId(), t.group(), t.cpuShare() * 100,
                t.workShare() < 0 ? "working share unknown" : String.format(Locale.ROOT, "%.0f%% working",
                        t.workShare() * 100), t.wakeupsPerSecond(), t.rings());
    }

    private static String rate(long count, double seconds) {
        return Double.isNaN(seconds) ? "-" : String.format(Locale.ROOT, "%.0f", count / seconds);
    }
}
