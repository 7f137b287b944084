package dev.uringactors.bench.figures;

import org.knowm.xchart.BoxChart;
import org.knowm.xchart.BoxChartBuilder;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One box per series, each run a point in it: ours against each peer, with the spread of the runs. */
final class SpreadChart {
    private SpreadChart() {
    }

    static BoxChart of(String title, String yTitle, Map<String, List<Double>> runsBySeries) {
        BoxChart chart = new BoxChartBuilder().width(ChartLook.WIDTH).height(ChartLook.HEIGHT).title(title)
                .yAxisTitle(yTitle).build();
        ChartLook.apply(chart.getStyler());
        // Slanted, long series names ("uring-actors (lent, 1 ring)") do not run into each other.
        chart.getStyler().setXAxisLabelRotation(15);
        chart.getStyler().setShowWithinAreaPoint(true);
        runsBySeries.forEach(chart::addSeries);
        return chart;
    }

    /** {@code recording}'s main metric, one box per series (the recording has one x). */
    static BoxChart of(Recording recording) {
        String metric = recording.mainMetric();
        Map<String, List<Double>> runs = new LinkedHashMap<>();
        recording.runs(metric).forEach((series, byX) -> runs.put(series, byX.firstEntry().getValue()));
        return of(ChartLook.title(recording, metric), metric, runs);
    }
}
