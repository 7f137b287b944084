package dev.uringactors.bench.figures;

import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;

import java.awt.Font;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

/** What every chart shares: its size, and axis figures as people write them (121 k, 10.1 M). */
final class ChartLook {
    static final int WIDTH = 800;
    static final int HEIGHT = 450;
    private static final DecimalFormat SHORT = new DecimalFormat("0.##", DecimalFormatSymbols.getInstance(Locale.ROOT));

    private ChartLook() {
    }

    static void apply(AxesChartStyler styler) {
        styler.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 12)); // room for where and when
        styler.setLegendPosition(Styler.LegendPosition.OutsideE);
        styler.setyAxisTickLabelsFormattingFunction(ChartLook::shortNumber);
    }

    /** The title of {@code recording}'s chart: what it shows, and where and when it was measured. */
    static String title(Recording recording, String what) {
        return recording.workload() + ": " + what + " (" + recording.date() + ", " + recording.machine() + ")";
    }

    static String shortNumber(double v) {
        double a = Math.abs(v);
        return a >= 1e6 ? SHORT.format(v / 1e6) + " M" : a >= 1e3 ? SHORT.format(v / 1e3) + " k" : SHORT.format(v);
    }
}
