package dev.uringactors.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Runs fio's io_uring engine for 4 KiB random reads and reads its IOPS. */
final class Fio {
    private static final Pattern READ_IOPS = Pattern.compile("\"read\"\\s*:\\s*\\{.*?\"iops\"\\s*:\\s*([0-9.]+)",
            Pattern.DOTALL);

    private Fio() {
    }

    static double randRead(String fio, Path file, boolean direct, int qd, int seconds) throws Exception {
        Process p = new ProcessBuilder(fio, "--name=randread", "--filename=" + file, "--rw=randread", "--bs=4k",
                "--ioengine=io_uring", "--iodepth=" + qd, "--direct=" + (direct ? 1 : 0), "--time_based",
                "--runtime=" + seconds, "--ramp_time=2", "--output-format=json").redirectErrorStream(true).start();
        String out;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            out = r.lines().collect(Collectors.joining("\n"));
        }
        Matcher m = READ_IOPS.matcher(out);
        if (p.waitFor() != 0 || !m.find()) {
            throw new IllegalStateException("fio failed: " + out);
        }
        return Double.parseDouble(m.group(1));
    }
}
