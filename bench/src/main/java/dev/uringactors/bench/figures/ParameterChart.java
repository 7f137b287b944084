package dev.uringactors.bench.figures;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A workload's main metric at each setting its runs tried (queue depths, file sizes, connections), one category
 * per setting: a line per series through its medians, and every run as a point of the series' colour.
 */
final class ParameterChart {
    private ParameterChart() {
    }

    static CategoryChart of(Recording recording) {
        String metric = recording.mainMetric();
        CategoryChart chart = new CategoryChartBuilder().width(ChartLook.WIDTH).height(ChartLook.HEIGHT)
                .title(ChartLook.title(recording, metric + " by " + recording.param()))
                .xAxisTitle(recording.param()).yAxisTitle(metric).build();
        ChartLook.apply(chart.getStyler());
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setOverlapped(true); // every series at its category's centre, not side by side
        Map<String, TreeMap<Double, List<Double>>> runs = recording.runs(metric);
        List<Double> settings = new ArrayList<>(new TreeSet<>(recording.figures().stream().map(Figure::x).toList()));
        List<String> labels = settings.stream().map(Figure::plain).toList();
        Color[] colors = chart.getStyler().getSeriesColors();
        int i = 0;
        for (var series : runs.entrySet()) {
            Color color = colors[i++ % colors.length];
            TreeMap<Double, List<Double>> byX = series.getValue();
            CategorySeries line = chart.addSeries(series.getKey(), labels,
                    settings.stream().map(x -> byX.containsKey(x) ? median(byX.get(x)) : null).toList());
            line.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
            line.setMarker(SeriesMarkers.NONE);
            line.setLineColor(color);
            line.setLineStyle(SeriesLines.SOLID);
            int mostRuns = byX.values().stream().mapToInt(List::size).max().orElse(0);
            for (int run = 0; run < mostRuns; run++) { // a series of points per run: a category takes one value
                int r = run;
                CategorySeries points = chart.addSeries(series.getKey() + ", run " + (run + 1), labels,
                        settings.stream().map(x -> byX.containsKey(x) && byX.get(x).size() > r ? byX.get(x).get(r)
                                : null).toList());
                points.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
                points.setMarker(SeriesMarkers.CIRCLE);
                points.setMarkerColor(color);
                points.setShowInLegend(false);
            }
        }
        return chart;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
