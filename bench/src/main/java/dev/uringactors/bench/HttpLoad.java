package dev.uringactors.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the HTTP benchmarks share: servers run as processes (a sample from its jar, or a program on PATH), and
 * bounded wrk runs against them on CPU 0.
 */
final class HttpLoad {
    private static final Pattern REQUESTS = Pattern.compile("Requests/sec:\\s*([0-9.]+)");
    private static final Pattern H2_RATE = Pattern.compile("finished in [0-9.]+m?s, ([0-9.]+) req/s");
    private static final Pattern H2_FAILED = Pattern.compile("(\\d+) failed, (\\d+) errored, (\\d+) timeout");
    private static final Pattern H2_STATUS = Pattern.compile("status codes: \\d+ 2xx, (\\d+) 3xx, (\\d+) 4xx, (\\d+) 5xx");
    private static final int QUIET_WAIT_SECONDS = 60;
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");

    private HttpLoad() {
    }

    /** A program on PATH (or in /usr/sbin, where nginx lives), or a failure naming the packages to install. */
    static String onPath(String program, String packages) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            for (String prefix : new String[] {dir, "/usr/sbin"}) {
                Path candidate = Path.of(prefix, program);
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        throw new IllegalArgumentException(program + " not found: apt-get install " + packages);
    }

    static void requireSampleJar(String sampleJar) {
        if (!Files.isRegularFile(Path.of(sampleJar))) {
            throw new IllegalArgumentException(sampleJar + " is missing: build with mvn -B -DskipTests package");
        }
    }

    static Process start(List<String> command) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /**
     * Reads a sample's output until it says where it listens; from then on its output is drained, so that it
     * never blocks on a full pipe.
     */
    static int listeningPort(Process sample) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(sample.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> drain(out), "sample-output");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IllegalStateException("the sample did not start");
    }

    private static void drain(BufferedReader out) {
        try {
            out.transferTo(Writer.nullWriter());
        } catch (IOException e) {
            // the sample was stopped
        }
    }

    /** Requests per second of one bounded {@code wrk -t1 -c64} run on CPU 0; any non-2xx answer fails it. */
    static double wrk(String wrk, String url, int seconds) throws Exception {
        Process p = start(List.of("taskset", "-c", "0", wrk, "-t1", "-c64", "-d" + seconds + "s", url));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Matcher m = REQUESTS.matcher(out);
        if (p.waitFor() != 0 || !m.find() || out.contains("Non-2xx")) {
            throw new IllegalStateException("wrk against " + url + " failed: " + out);
        }
        return Double.parseDouble(m.group(1));
    }

    /**
     * Requests per second of one bounded {@code h2load -c16 -m32} run (HTTP/2 with prior knowledge, 16
     * connections of 32 concurrent streams) on CPU 0; any failed, errored or non-2xx request fails it.
     */
    static double h2load(String h2load, String url, int seconds) throws Exception {
        return h2load(h2load, url, seconds, List.of());
    }

    /** As above, with h2load's {@code options} too (a body to POST, headers). */
    static double h2load(String h2load, String url, int seconds, List<String> options) throws Exception {
        List<String> command = new ArrayList<>(List.of("taskset", "-c", "0", h2load, "-c16", "-m32", "-t1",
                "-D" + seconds));
        command.addAll(options);
        command.add(url);
        Process p = start(command);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Matcher rate = H2_RATE.matcher(out);
        Matcher failed = H2_FAILED.matcher(out);
        Matcher status = H2_STATUS.matcher(out);
        boolean clean = failed.find() && status.find() && failed.group(1).equals("0") && failed.group(2).equals("0")
                && failed.group(3).equals("0") && status.group(1).equals("0") && status.group(2).equals("0")
                && status.group(3).equals("0");
        if (p.waitFor() != 0 || !rate.find() || !clean) {
            throw new IllegalStateException("h2load against " + url + " failed: " + out);
        }
        return Double.parseDouble(rate.group(1));
    }

    /**
     * Waits, for at most {@code QUIET_WAIT_SECONDS}, until no server of {@code servers} used more than 3% of a CPU
     * over the last second. Servers that share a CPU and are measured in turn must be: a JVM still compiling
     * what its own run made hot takes its share of the next server's run (3.3 s of a 10 s run was seen).
     */
    static void awaitQuiet(List<Process> servers) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(QUIET_WAIT_SECONDS);
        long[] before = cpuTicks(servers);
        while (System.nanoTime() < deadline) {
            Thread.sleep(1000);
            long[] now = cpuTicks(servers);
            boolean quiet = true;
            for (int i = 0; i < now.length; i++) {
                quiet &= now[i] - before[i] <= 3; // clock ticks of 10 ms: 3% of a CPU in a second
            }
            if (quiet) {
                return;
            }
            before = now;
        }
        System.out.println("servers still busy after " + QUIET_WAIT_SECONDS + " s without load: measuring anyway");
    }

    /** A measured run: requests a second, and the server's CPU time per request. */
    record Served(double perSecond, double cpuMicrosPerRequest) {
    }

    /** A load run of {@code seconds} against {@code server}, that gives requests a second, with the server's CPU. */
    interface LoadRun {
        double perSecond() throws Exception;
    }

    /** Runs {@code load} against {@code server}, timing the server's CPU (user and system) over the run. */
    static Served served(Process server, int seconds, LoadRun load) throws Exception {
        long before = cpuTicks(List.of(server))[0];
        double perSecond = load.perSecond();
        double cpuMicros = (cpuTicks(List.of(server))[0] - before) * 10_000.0; // a tick is 10 ms (USER_HZ)
        return new Served(perSecond, cpuMicros / (perSecond * seconds));
    }

    /** Each process's user and system CPU time so far, in clock ticks ({@code /proc/<pid>/stat}). */
    private static long[] cpuTicks(List<Process> processes) throws IOException {
        long[] ticks = new long[processes.size()];
        for (int i = 0; i < ticks.length; i++) {
            String stat = Files.readString(Path.of("/proc", String.valueOf(processes.get(i).pid()), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // fields from the 3rd on
            ticks[i] = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime (14th), stime (15th)
        }
        return ticks;
    }

    /** Stops what was started (SIGTERM, then SIGKILL after 10 s). */
    static void stopAll(List<Process> started) throws InterruptedException {
        for (Process p : started) {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
