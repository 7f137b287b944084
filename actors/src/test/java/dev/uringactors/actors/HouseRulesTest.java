package dev.uringactors.actors;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The layout rules that reading the sources can check: the backend is chosen in one place, the loop and the
 * issuer know nothing of files or sockets, and no class keeps a static field a test could set. Read from the
 * library modules' main sources (this module's, and those of {@code ring}, {@code http} and {@code micrometer}
 * beside it).
 */
class HouseRulesTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path ACTORS = ROOT.resolve("actors/src/main/java/dev/uringactors/actors");
    /** Naming a backend's constant is testing which one runs: only where it is chosen. */
    private static final Pattern NAMES_A_BACKEND = Pattern.compile("\\bBackend\\.(JDK|IO_URING)\\b");
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)", Pattern.MULTILINE);
    /** What the loop and the issuer must not import: the files' and sockets' own classes. */
    private static final List<String> FILES_AND_SOCKETS = List.of(
            "dev.uringactors.actors.file.", "dev.uringactors.actors.tcp.", "dev.uringactors.actors.stream.",
            "dev.uringactors.actors.internal.file.", "dev.uringactors.actors.internal.tcp.",
            "dev.uringactors.actors.TcpStats", "dev.uringactors.ring.Sockets", "dev.uringactors.ring.Pipe",
            "dev.uringactors.ring.Statx", "dev.uringactors.ring.OpenHow");

    /** A static field that is not final: what a test hook would be (constants and loggers are final). */
    private static final Pattern MUTABLE_STATIC = Pattern.compile(
            "^\\s*(?:(?:public|protected|private|volatile|transient)\\s+)*static\\s+"
                    + "(?:(?:volatile|transient)\\s+)*(?!final\\b)(?!class\\b|interface\\b|enum\\b|record\\b)"
                    + "[\\w<>?,.\\[\\] ]+\\s+\\w+\\s*(?:=|;)", Pattern.MULTILINE);

    @Test
    void noLibraryClassKeepsAStaticFieldATestCouldSet() throws IOException {
        List<String> found = new ArrayList<>();
        for (String module : List.of("ring", "config", "actors", "http", "micrometer")) {
            for (Path source : sources(ROOT.resolve(module).resolve("src/main/java"))) {
                Matcher m = MUTABLE_STATIC.matcher(code(source));
                while (m.find()) {
                    found.add(ROOT.relativize(source) + ": " + m.group().strip());
                }
            }
        }
        assertEquals(List.of(), found, "faults and interceptors come in through constructors, not static fields");
    }

    @Test
    void onlyTheBackendChoiceNamesABackend() throws IOException {
        List<String> found = new ArrayList<>();
        for (String module : List.of("actors", "http", "micrometer")) {
            for (Path source : sources(ROOT.resolve(module).resolve("src/main/java"))) {
                boolean choosing = source.startsWith(ACTORS.resolve("internal/backend"))
                        || source.equals(ACTORS.resolve("BackendChoice.java"));
                Matcher m = NAMES_A_BACKEND.matcher(code(source));
                while (!choosing && m.find()) {
                    found.add(ROOT.relativize(source) + ": " + m.group());
                }
            }
        }
        assertEquals(List.of(), found, "only internal.backend and BackendChoice may test which backend runs");
    }

    @Test
    void theLoopAndTheIssuerImportNothingOfFilesOrSockets() throws IOException {
        List<String> found = new ArrayList<>();
        for (String pkg : List.of("internal/loop", "internal/issue")) {
            List<Path> sources = sources(ACTORS.resolve(pkg));
            assertTrue(sources.size() > 5, "the sources of " + pkg + " are read: " + sources);
            for (Path source : sources) {
                Matcher m = IMPORT.matcher(Files.readString(source));
                while (m.find()) {
                    String imported = m.group(2);
                    if (FILES_AND_SOCKETS.stream().anyMatch(imported::startsWith)) {
                        found.add(ROOT.relativize(source) + " imports " + imported);
                    }
                }
            }
        }
        assertEquals(List.of(), found);
    }

    private static List<Path> sources(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }

    /** The source without its comments, where {@code Backend#JDK} in a Javadoc link is not a test of anything. */
    private static String code(Path source) throws IOException {
        return Files.readString(source).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
    }
}
