package dev.uringactors.bench.figures;

import org.knowm.xchart.internal.chartpart.Chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code plot}: every recording in a directory of figures (what the bench commands wrote with {@code --data}) as a
 * chart, PNG and SVG, named like its data file, and the headline chart of ours against each peer.
 */
public final class Plot {
    /** The metric the wait strategies' IOPS are drawn against: the ring thread's CPU time, in % of a core. */
    public static final String RING_THREAD_CPU = "ring thread CPU %";
    /** Its workloads: what a wait strategy gives is worth only as much as what its ring thread spends for it. */
    private static final String WAIT_MODES = "wait-modes";

    private Plot() {
    }

    public static void run(Path data, Path out) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Recording> recordings = Recording.load(data);
        if (recordings.isEmpty()) {
            throw new IllegalArgumentException("no figures (*.csv, as the commands write with --data) in " + data);
        }
        Files.createDirectories(out);
        var headline = HeadlineChart.of(recordings);
        if (headline.isPresent()) {
            write(headline.get().chart(), out.resolve("headline"), headline.get().description());
        }
        for (Recording r : recordings) {
            write(chartOf(r), out.resolve(r.name()), "Series: "
                    + String.join(", ", r.runs(r.mainMetric()).keySet()) + ". Recorded in " + r.name() + ".");
        }
    }

    private static Chart<?, ?> chartOf(Recording r) {
        if (r.workload().startsWith(WAIT_MODES) && !r.runs(RING_THREAD_CPU).isEmpty()) {
            return TradeOffChart.of(r, RING_THREAD_CPU, r.mainMetric());
        }
        return r.distinctX() > 1 ? ParameterChart.of(r) : SpreadChart.of(r);
    }

    private static void write(Chart<?, ?> chart, Path base, String description) throws IOException {
        ChartFiles.write(chart, base, description);
        System.out.println("plot: " + base + ".png, .svg");
    }
}
