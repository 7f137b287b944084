package dev.uringactors.bench.figures;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlotTest {
    /** Three small recordings: a box per server (and the headline), a sweep of queue depths, the wait strategies. */
    private static final Path DATA = Path.of("src/test/resources/figures");

    @Test
    void writesEveryRecordingAndTheHeadlineAsPngAndSvg(@TempDir Path out) throws Exception {
        Plot.run(DATA, out);

        List<Recording> recordings = Recording.load(DATA);
        assertEquals(3, recordings.size());
        for (Recording r : recordings) {
            Set<String> series = r.figures().stream().map(Figure::series).collect(Collectors.toSet());
            assertImages(out.resolve(r.name()), series);
        }
        assertImages(out.resolve("headline"), Set.of("uring-actors", "netty-io_uring"));
        try (var files = Files.list(out)) {
            assertEquals(2 * (recordings.size() + 1), files.count(), "a PNG and an SVG per chart, nothing else");
        }
    }

    private static void assertImages(Path base, Set<String> series) throws Exception {
        Path png = Path.of(base + ".png");
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(ChartLook.WIDTH, image.getWidth(), png.toString());
        assertEquals(ChartLook.HEIGHT, image.getHeight(), png.toString());
        long pngSize = Files.size(png);
        assertTrue(pngSize > 5_000 && pngSize < 200_000, png + " is " + pngSize + " bytes");

        Path svg = Path.of(base + ".svg");
        long svgSize = Files.size(svg);
        assertTrue(svgSize > 20_000 && svgSize < 1_000_000, svg + " is " + svgSize + " bytes");
        String text = Files.readString(svg);
        assertTrue(text.contains("<svg") && text.trim().endsWith("</svg>"), svg + " is not a whole SVG");
        for (String name : series) {
            assertTrue(text.contains(name), svg + " does not name the series " + name);
        }
    }
}
