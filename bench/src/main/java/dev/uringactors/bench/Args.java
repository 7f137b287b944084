package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** {@code --name value} options of a bench command, with typed defaults and a clear error for bad input. */
final class Args {
    private final Map<String, String> values = new HashMap<>();

    Args(String[] args, int from) {
        for (int i = from; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got: " + args[i]);
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
    }

    int intValue(String name, int fallback) {
        String v = values.get(name);
        try {
            return v == null ? fallback : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " takes a whole number, got: " + v);
        }
    }

    String string(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    /**
     * The samples jar the command runs its servers from: {@code --sample-jar J} (another commit's, to measure it
     * beside this one), by default this build's; refused when it is not there.
     */
    String sampleJar() {
        String jar = string("sample-jar", "samples/target/uring-samples.jar");
        if (!Files.isRegularFile(Path.of(jar))) {
            throw new IllegalArgumentException(jar + " is missing: build with mvn -B -DskipTests package");
        }
        return jar;
    }

    /** Where the command records {@code workload}'s figures: {@code --data DIR}, or nowhere. */
    FigureRecorder figures(String workload) {
        return FigureRecorder.to(values.get("data"), workload);
    }

    boolean bool(String name, boolean fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("--" + name + " takes true or false, got: " + v);
        }
        return Boolean.parseBoolean(v);
    }
}
