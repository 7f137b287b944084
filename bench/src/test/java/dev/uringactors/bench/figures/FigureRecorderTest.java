package dev.uringactors.bench.figures;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FigureRecorderTest {
    @Test
    void appendsARunsFiguresToTheFileOfItsWorkloadMachineAndDay(@TempDir Path dir) throws Exception {
        FigureRecorder first = FigureRecorder.to(dir.toString(), "file-read-direct-zram0");
        first.record("uring-actors (lent, 1 ring)", "queue depth", 32, "IOPS", 381_600);
        first.record("fio \"best\"", "queue depth", 32, "CPU us/read", 2.54);
        FigureRecorder.to(dir.toString(), "file-read-direct-zram0").record("fio", "queue depth", 1, "IOPS", 9_000.5);

        Path file = dir.resolve("file-read-direct-zram0_" + FigureRecorder.thisMachine() + "_" + LocalDate.now()
                + ".csv");
        List<String> lines = Files.readAllLines(file);
        assertEquals(Figure.HEADER, lines.get(0));
        assertEquals(4, lines.size(), "one header, then a line per figure: " + lines);
        assertTrue(lines.get(1).endsWith(",\"uring-actors (lent, 1 ring)\",queue depth,32,IOPS,381600"), lines.get(1));

        List<Figure> figures = Recording.load(dir).get(0).figures();
        assertEquals("fio \"best\"", figures.get(1).series());
        assertEquals(2.54, figures.get(1).value());
        assertEquals(9_000.5, figures.get(2).value());
        assertEquals(figures.get(0).run(), figures.get(1).run(), "one recorder, one run");
    }
}
