package dev.uringactors.bench.figures;

import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.BoxChart;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Where uring-actors stands against each peer, at a glance: ours / peer within each run, one box per comparison,
 * from the newest recording that has both. Ratios of the same run, because these machines are noisy.
 */
final class HeadlineChart {
    /** {@code ours} / {@code peer} in {@code metric} at {@code x} of {@code workload}'s runs, shown as {@code label}. */
    record Comparison(String label, String workload, double x, String metric, String ours, String peer) {
    }

    static final List<Comparison> COMPARISONS = List.of(
            new Comparison("echo / Netty", "echo-peers", 64, "round trips/s", "uring-actors", "netty-io_uring"),
            new Comparison("4 KiB / nginx", "file-server", 4, "requests/s", "uring-actors", "nginx"),
            new Comparison("1 MiB / nginx", "file-server", 1024, "MB/s", "uring-actors", "nginx"),
            new Comparison("HTTP / Pekko", "pekko-http", 64, "requests/s", "uring-actors", "pekko-tcp"),
            new Comparison("reads / fio", "file-read-direct-zram0", 32, "IOPS", "uring-actors (1 ring)", "fio best"),
            new Comparison("lent / fio", "file-read-direct-zram0", 32, "IOPS", "uring-actors (lent, 1 ring)",
                    "fio best"),
            new Comparison("NOP / liburing", "nop", 32, "NOPs/s", "uring-actors", "liburing (C)"));

    /** The chart and what it was made of, in words (the SVG's description). */
    record Headline(BoxChart chart, String description) {
    }

    private HeadlineChart() {
    }

    static Optional<Headline> of(List<Recording> recordings) {
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        List<String> sources = new ArrayList<>();
        TreeSet<String> dates = new TreeSet<>();
        TreeSet<String> machines = new TreeSet<>();
        for (Comparison c : COMPARISONS) {
            recordings.stream().filter(r -> r.workload().equals(c.workload()) && !ratios(r, c).isEmpty())
                    .max(Comparator.comparing(Recording::date)).ifPresent(r -> {
                        ratios.put(c.label(), ratios(r, c));
                        sources.add(c.label() + ": " + c.ours() + " / " + c.peer() + ", " + c.metric() + " at "
                                + ChartLook.shortNumber(c.x()) + " " + r.param() + ", " + r.name());
                        dates.add(r.date());
                        machines.add(r.machine());
                    });
        }
        if (ratios.isEmpty()) {
            return Optional.empty();
        }
        String when = dates.first().equals(dates.last()) ? dates.first() : dates.first() + " to " + dates.last();
        BoxChart chart = SpreadChart.of("uring-actors / peer, in the same run (" + when + ", "
                + String.join(", ", machines) + ")", "ours / peer (above 1: ours ahead)", ratios);
        chart.addAnnotation(new AnnotationLine(1.0, false, false)); // parity
        return Optional.of(new Headline(chart, String.join("; ", sources)));
    }

    private static List<Double> ratios(Recording r, Comparison c) {
        Map<String, Double> ours = r.byRun(c.ours(), c.x(), c.metric());
        Map<String, Double> peer = r.byRun(c.peer(), c.x(), c.metric());
        return ours.keySet().stream().filter(peer::containsKey).map(run -> ours.get(run) / peer.get(run)).toList();
    }
}
