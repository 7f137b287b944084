package dev.uringactors.bench.figures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The recorded runs of one workload on one machine on one day: what one chart draws. */
record Recording(String name, List<Figure> figures) {
    /** Every recording in {@code dir}'s CSV files, in the order of their names. */
    static List<Recording> load(Path dir) {
        Map<String, List<Figure>> byName = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".csv")).sorted().toList()) {
                for (String line : Files.readAllLines(file)) {
                    if (!line.isBlank() && !line.equals(Figure.HEADER)) {
                        Figure f = Figure.parse(line);
                        byName.computeIfAbsent(f.recording(), k -> new ArrayList<>()).add(f);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the figures in " + dir, e);
        }
        return byName.entrySet().stream().map(e -> new Recording(e.getKey(), e.getValue())).toList();
    }

    String workload() {
        return first().workload();
    }

    String date() {
        return first().date();
    }

    String machine() {
        return first().machine();
    }

    /** What the workload's runs vary, e.g. "queue depth". */
    String param() {
        return first().param();
    }

    /** The metric recorded first: each command records its headline figure first. */
    String mainMetric() {
        return first().metric();
    }

    long distinctX() {
        return figures.stream().mapToDouble(Figure::x).distinct().count();
    }

    /** Every run's value of {@code metric}, by series in the order recorded, then by x in ascending order. */
    Map<String, TreeMap<Double, List<Double>>> runs(String metric) {
        Map<String, TreeMap<Double, List<Double>>> runs = new LinkedHashMap<>();
        for (Figure f : figures) {
            if (f.metric().equals(metric)) {
                runs.computeIfAbsent(f.series(), s -> new TreeMap<>())
                        .computeIfAbsent(f.x(), x -> new ArrayList<>()).add(f.value());
            }
        }
        return runs;
    }

    /** {@code metric} of {@code series} at {@code x}, by run. */
    Map<String, Double> byRun(String series, double x, String metric) {
        Map<String, Double> values = new LinkedHashMap<>();
        figures.stream().filter(f -> f.series().equals(series) && f.x() == x && f.metric().equals(metric))
                .forEach(f -> values.put(f.run(), f.value()));
        return values;
    }

    private Figure first() {
        return figures.get(0);
    }
}
