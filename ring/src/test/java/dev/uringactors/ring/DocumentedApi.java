package dev.uringactors.ring;

import com.sun.source.util.JavacTask;
import org.junit.jupiter.api.Test;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A module's public API is documented: every public type and member of its packages (those not named
 * {@code internal}) has a doc comment, as doclint's "missing" check finds them. The build's javadoc runs doclint
 * for everything else (HTML, references, syntax); {@code @param} and {@code @return} are not required where the
 * sentence says it. Each library module has a test class that extends this one.
 */
public abstract class DocumentedApi {
    @Test
    void everyPublicTypeAndMemberHasADocComment() throws IOException {
        assertEquals(List.of(), undocumented(Path.of("src/main/java")));
    }

    private static List<String> undocumented(Path sources) throws IOException {
        List<Path> files;
        try (Stream<Path> all = Files.walk(sources)) {
            files = all.filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/internal/")).toList();
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("-Xdoclint:missing/protected", "-Xmaxwarns", "100000", "-proc:none",
                    "-classpath", System.getProperty("java.class.path"));
            ((JavacTask) javac.getTask(null, fileManager, diagnostics, options, null,
                    fileManager.getJavaFileObjectsFromPaths(files))).analyze();
        }
        return diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.WARNING && d.getMessage(Locale.ROOT).equals("no comment"))
                .map(d -> sources.toAbsolutePath().relativize(Path.of(d.getSource().toUri())) + ":" + d.getLineNumber())
                .toList();
    }
}
