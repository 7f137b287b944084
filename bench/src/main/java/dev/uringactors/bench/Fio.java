package dev.uringactors.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Runs fio's io_uring engine for 4 KiB random reads and reads its IOPS and its own CPU time (user + system). */
final class Fio {
    private static final Pattern READ_IOPS = Pattern.compile("\"read\"\\s*:\\s*\\{.*?\"iops\"\\s*:\\s*([0-9.]+)",
            Pattern.DOTALL);
    private static final Pattern USR_CPU = Pattern.compile("\"usr_cpu\"\\s*:\\s*([0-9.]+)");
    private static final Pattern SYS_CPU = Pattern.compile("\"sys_cpu\"\\s*:\\s*([0-9.]+)");
    /** fio's fastest io_uring settings: registered buffers and file, submissions and completions in batches. */
    static final List<String> BEST = List.of("--fixedbufs", "--registerfiles", "--iodepth_batch_submit=32",
            "--iodepth_batch_complete_max=32");

    private Fio() {
    }

    /**
     * IOPS, and fio's CPU per read: its usr_cpu + sys_cpu (percent of one CPU over the run) per read. Extra
     * options (such as {@link #BEST}) go after the common ones.
     */
    static Throughput randRead(String fio, Path file, boolean direct, int qd, int seconds, List<String> extra)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(fio, "--name=randread", "--filename=" + file,
                "--rw=randread", "--bs=4k", "--ioengine=io_uring", "--iodepth=" + qd, "--direct=" + (direct ? 1 : 0),
                "--time_based", "--runtime=" + seconds, "--ramp_time=2", "--output-format=json"));
        command.addAll(extra);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            out = r.lines().collect(Collectors.joining("\n"));
        }
        Matcher m = READ_IOPS.matcher(out);
        Matcher usr = USR_CPU.matcher(out);
        Matcher sys = SYS_CPU.matcher(out);
        if (p.waitFor() != 0 || !m.find() || !usr.find() || !sys.find()) {
            throw new IllegalStateException("fio failed: " + out);
        }
        double iops = Double.parseDouble(m.group(1));
        double cpuShare = (Double.parseDouble(usr.group(1)) + Double.parseDouble(sys.group(1))) / 100;
        return new Throughput(iops, cpuShare * 1e6 / iops, Double.NaN);
    }
}
