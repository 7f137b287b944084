package dev.uringactors.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs the C {@code nop} program (bench/src/main/c, built by bench/build-c.sh) and reads its ops/s. */
final class CNop {
    private static final Pattern MOPS = Pattern.compile("Mops/s=([0-9.]+)");

    private CNop() {
    }

    static double run(String program, int entries, int batch, int seconds) throws Exception {
        Process p = new ProcessBuilder(program, String.valueOf(entries), String.valueOf(batch), "sidt",
                String.valueOf(seconds)).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            r.lines().forEach(l -> out.append(l).append('\n'));
        }
        int exit = p.waitFor();
        Matcher m = MOPS.matcher(out);
        if (exit != 0 || !m.find()) {
            throw new IllegalStateException(program + " failed (exit " + exit + "): " + out);
        }
        return Double.parseDouble(m.group(1)) * 1e6;
    }
}
