package dev.uringactors.samples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes a test's directory tree, deepest first; symlinks are removed, not followed. */
final class TempTree {
    private TempTree() {
    }

    static void delete(Path base) throws IOException {
        try (Stream<Path> paths = Files.walk(base)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
