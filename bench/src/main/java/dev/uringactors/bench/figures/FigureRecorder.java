package dev.uringactors.bench.figures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Where a bench command puts its figures with {@code --data DIR}: appended, a line per figure, to
 * {@code DIR/<workload>_<machine>_<date>.csv}, which {@code plot} turns into charts. Without a directory it
 * records nothing. A figure is written as soon as it is measured, so a run that fails later keeps it.
 */
public final class FigureRecorder {
    private final Path file;
    private final String date = LocalDate.now().toString();
    private final String machine = thisMachine();
    private final String workload;
    /** Tells this run's lines from the day's other runs of the workload. */
    private final String run = LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
    private boolean announced;

    private FigureRecorder(Path dir, String workload) {
        this.workload = workload;
        this.file = dir == null ? null : dir.resolve(Figure.recording(workload, machine, date) + ".csv");
    }

    /** Records {@code workload}'s figures in {@code dir}; with a null {@code dir}, nowhere. */
    public static FigureRecorder to(String dir, String workload) {
        return new FigureRecorder(dir == null ? null : Path.of(dir), workload);
    }

    /** {@code series} (ours, or a peer) measured {@code value} of {@code metric} with {@code param} at {@code x}. */
    public void record(String series, String param, double x, String metric, double value) {
        if (file == null) {
            return;
        }
        String line = new Figure(date, machine, workload, run, series, param, x, metric, value).toCsv();
        try {
            if (!announced) {
                System.out.println("figures: recording in " + file);
                announced = true;
            }
            if (!Files.exists(file)) {
                Files.createDirectories(file.getParent());
                Files.writeString(file, Figure.HEADER + "\n");
            }
            Files.write(file, List.of(line), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record figures in " + file, e);
        }
    }

    /**
     * The machine, as it matters to the figures: all its CPUs (not those this process is pinned to), the kernel
     * release and the JDK, e.g. {@code 2cpu-linux6.18-jdk17.0.15}.
     */
    static String thisMachine() {
        long cpus;
        try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            cpus = lines.filter(l -> l.startsWith("processor")).count();
        } catch (IOException e) {
            cpus = Runtime.getRuntime().availableProcessors();
        }
        String[] kernel = System.getProperty("os.version").split("[.-]");
        return cpus + "cpu-linux" + kernel[0] + "." + kernel[1] + "-jdk" + System.getProperty("java.version");
    }
}
