package dev.uringactors.samples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * Runs the main class named first ({@link Main}, say) with the other arguments, after loading every project class.
 * Under Maven the classes come from directories, so a class first needed while the process is out of file
 * descriptors could not be read; a packaged jar has its fd open already. Loading them up front gives the child in
 * {@code FdExhaustionTest} what a deployment has.
 */
public final class PreloadingMain {
    private PreloadingMain() {
    }

    public static void main(String[] args) throws Exception {
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path root = Path.of(entry);
            if (Files.isDirectory(root)) {
                load(root);
            }
        }
        Class.forName(args[0]).getMethod("main", String[].class)
                .invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    }

    private static void load(Path root) throws IOException, ClassNotFoundException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                String name = root.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (name.startsWith("dev.uringactors.")) {
                    Class.forName(name, false, PreloadingMain.class.getClassLoader());
                }
            }
        }
    }
}
