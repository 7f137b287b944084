package dev.uringactors.samples;

import java.util.Locale;

/** The kv store's line of {@code --stats}: commands and where they went, appends and fsyncs, per second. */
final class KvStatsLine {
    private final KvNode.Counters counters;
    private long lastNanos;
    private long commands;
    private long local;
    private long remote;
    private long appendBytes;
    private long fsyncs;

    KvStatsLine(KvNode.Counters counters) {
        this.counters = counters;
    }

    /** The line for {@code nanos}; the first one counts from the start. Called from one thread at a time. */
    synchronized String next(long nanos) {
        double seconds = lastNanos == 0 ? Double.NaN : (nanos - lastNanos) / 1e9;
        lastNanos = nanos;
        long c = counters.commands.sum();
        long l = counters.local.sum();
        long r = counters.remote.sum();
        long a = counters.appendBytes.sum();
        long f = counters.fsyncs.sum();
        String line = String.format(Locale.ROOT, "kv: %s commands/s, %s local requests/s, %s via the shard region/s, "
                        + "%s append bytes/s, %s fsyncs/s", rate(c - commands, seconds), rate(l - local, seconds),
                rate(r - remote, seconds), rate(a - appendBytes, seconds), rate(f - fsyncs, seconds));
        commands = c;
        local = l;
        remote = r;
        appendBytes = a;
        fsyncs = f;
        return line;
    }

    private static String rate(long count, double seconds) {
        return Double.isNaN(seconds) ? "-" : String.format(Locale.ROOT, "%.0f", count / seconds);
    }
}
