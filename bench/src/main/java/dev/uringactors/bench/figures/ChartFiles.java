package dev.uringactors.bench.figures;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a chart as PNG and SVG. */
final class ChartFiles {
    private ChartFiles() {
    }

    /**
     * Writes {@code base}.png and {@code base}.svg. XChart draws every label as glyph outlines, so the SVG also gets
     * the chart's title and {@code description} as its {@code <title>} and {@code <desc>}: words a screen reader,
     * a search or a test can find.
     */
    static void write(Chart<?, ?> chart, Path base, String description) throws IOException {
        BitmapEncoder.saveBitmap(chart, base + ".png", BitmapEncoder.BitmapFormat.PNG);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        VectorGraphicsEncoder.saveVectorGraphic(chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        String svg = out.toString(StandardCharsets.UTF_8);
        int body = svg.indexOf('>', svg.indexOf("<svg")) + 1;
        Files.writeString(Path.of(base + ".svg"), svg.substring(0, body) + "<title>" + xml(chart.getTitle())
                + "</title><desc>" + xml(description) + "</desc>" + svg.substring(body), StandardCharsets.UTF_8);
    }

    private static String xml(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
