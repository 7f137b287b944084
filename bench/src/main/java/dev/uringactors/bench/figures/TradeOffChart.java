package dev.uringactors.bench.figures;

import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One metric against another, each run a point, e.g. the wait strategies' IOPS against what the ring thread spent
 * for them: a series per series and setting ("hybrid (2 busy threads)").
 */
final class TradeOffChart {
    private TradeOffChart() {
    }

    static XYChart of(Recording recording, String xMetric, String yMetric) {
        XYChart chart = new XYChartBuilder().width(ChartLook.WIDTH).height(ChartLook.HEIGHT)
                .title(ChartLook.title(recording, yMetric + " vs " + xMetric))
                .xAxisTitle(xMetric).yAxisTitle(yMetric).build();
        ChartLook.apply(chart.getStyler());
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter)
                .setXAxisMin(0.0).setYAxisMin(0.0);
        Map<String, List<double[]>> points = new LinkedHashMap<>();
        for (Figure f : recording.figures()) {
            if (f.metric().equals(xMetric)) {
                Double y = recording.byRun(f.series(), f.x(), yMetric).get(f.run());
                if (y != null) {
                    String name = f.series() + " (" + ChartLook.shortNumber(f.x()) + " " + f.param() + ")";
                    points.computeIfAbsent(name, n -> new ArrayList<>()).add(new double[] {f.value(), y});
                }
            }
        }
        points.forEach((name, xy) -> chart.addSeries(name, xy.stream().map(p -> p[0]).toList(),
                xy.stream().map(p -> p[1]).toList()));
        return chart;
    }
}
