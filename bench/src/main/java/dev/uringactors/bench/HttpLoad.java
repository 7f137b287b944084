package dev.uringactors.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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
    /** A share of its CPU's time past which a load tool is taken to be its own bottleneck. */
    private static final double LOAD_BOUND = 0.9;
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");

    /**
     * A common pool of two threads, for the gRPC servers alone: pekko-grpc's Java API chains each call's stages on
     * views of Scala futures, which run even plain callbacks on the JDK's default async executor, and where the
     * common pool has fewer than two threads (a JVM that sees two CPUs or fewer) that executor starts a thread per
     * task. pekko-grpc has no way around it, so both servers get it, and the benchmark says so.
     */
    static final String COMMON_POOL_OF_TWO = "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2";

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

    /**
     * Lets nginx's worker, which runs as another user when nginx is started by root, into {@code dirs} (made with
     * {@code Files.createTempDirectory}, they are the owner's alone): rwxr-xr-x.
     */
    static void openToNginx(Path... dirs) throws IOException {
        for (Path dir : dirs) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    /** The top of an nginx configuration: one worker, in the foreground, its pid and error log in {@code dir}. */
    static String nginxMain(Path dir) {
        return """
                worker_processes 1;
                daemon off;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log;
                events { worker_connections 4096; }
                """.formatted(dir);
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
        long[] before = new long[servers.size()];
        for (int i = 0; i < before.length; i++) {
            before[i] = cpuTicks(servers.get(i).pid());
        }
        while (System.nanoTime() < deadline) {
            Thread.sleep(1000);
            long[] now = new long[before.length];
            boolean quiet = true;
            for (int i = 0; i < now.length; i++) {
                now[i] = cpuTicks(servers.get(i).pid());
                quiet &= now[i] - before[i] <= 3; // clock ticks of 10 ms: 3% of a CPU in a second
            }
            if (quiet) {
                return;
            }
            before = now;
        }
        System.out.println("servers still busy after " + QUIET_WAIT_SECONDS + " s without load: measuring anyway");
    }

    /** One load run against server {@code server} (0: the rings', 1: Pekko's), giving requests a second. */
    interface ServerRun {
        double perSecond(int server) throws Exception;
    }

    /** The medians of {@link #inTurn}: requests a second and the server's CPU time a request, for each server. */
    record SideBySide(double ours, double pekko, double oursCpuMicros, double pekkoCpuMicros) {
        /**
         * e.g. "uring 68349 req/s, pekko 34150 req/s (2.00x); server CPU a request 13.8 us against 28.9 us (2.09x)".
         */
        String summary(String unit, String per) {
            return String.format(Locale.ROOT, "uring %.0f %s, pekko %.0f %s (%.2fx); server CPU a %s %.1f us against "
                    + "%.1f us (%.2fx)", ours, unit, pekko, unit, ours / pekko, per, oursCpuMicros, pekkoCpuMicros,
                    pekkoCpuMicros / oursCpuMicros);
        }
    }

    /**
     * {@code rounds} rounds in which the two {@code servers} (the rings', then Pekko's) are each loaded for
     * {@code seconds} by {@code run}, once both are quiet ({@link #awaitQuiet}), with each server's CPU time and
     * its threads' context switches counted over its run (a request handed from thread to thread shows there),
     * and how busy CPU 0, the load's, was: a load tool that keeps its CPU busy is measuring itself, and the rate
     * is then its limit, not the server's; prints each round ({@code unit} such as "req/s", {@code per} such as
     * "request") and gives the medians.
     */
    static SideBySide inTurn(List<Process> servers, int rounds, int seconds, String unit, String per, ServerRun run)
            throws Exception {
        double[][] figures = new double[2][rounds];
        double[][] cpuMicros = new double[2][rounds]; // the server's CPU time a request
        double[][] switches = new double[2][rounds]; // the server's threads' context switches a request
        double[][] loadBusy = new double[2][rounds]; // the share of CPU 0, the load's, that was busy
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < 2; i++) {
                awaitQuiet(servers);
                long pid = servers.get(i).pid();
                long ticksBefore = cpuTicks(pid);
                long switchesBefore = contextSwitches(pid);
                long[] loadCpuBefore = cpuTimes(0);
                figures[i][r] = run.perSecond(i);
                loadBusy[i][r] = busyShare(loadCpuBefore, cpuTimes(0));
                long ticks = cpuTicks(pid) - ticksBefore;
                double requests = figures[i][r] * seconds;
                cpuMicros[i][r] = ticks * 10_000.0 / requests; // a tick is 10 ms (USER_HZ)
                switches[i][r] = (contextSwitches(pid) - switchesBefore) / requests;
            }
            System.out.printf(Locale.ROOT, "round %d: uring %.0f %s (%.1f us CPU, %.2f context switches a %s, load's "
                    + "CPU %.0f%% busy), pekko %.0f %s (%.1f us, %.2f, %.0f%%) (%.2fx)%n", r + 1, figures[0][r], unit,
                    cpuMicros[0][r], switches[0][r], per, 100 * loadBusy[0][r], figures[1][r], unit,
                    cpuMicros[1][r], switches[1][r], 100 * loadBusy[1][r], figures[0][r] / figures[1][r]);
        }
        long loadBound = Arrays.stream(loadBusy[0]).filter(busy -> busy >= LOAD_BOUND).count();
        if (loadBound > 0) {
            System.out.printf(Locale.ROOT, "in %d of %d rounds the load's CPU was %.0f%% busy or more while it loaded "
                    + "uring: there the rate is the load tool's limit, and the server CPU a %s compares the two "
                    + "servers%n", loadBound, rounds, 100 * LOAD_BOUND, per);
        }
        return new SideBySide(median(figures[0]), median(figures[1]), median(cpuMicros[0]), median(cpuMicros[1]));
    }

    /**
     * CPU {@code cpu}'s time so far, in clock ticks ({@code /proc/stat}): user, nice, system, idle, iowait, irq
     * and softirq (not the time the hypervisor took: neither busy here nor idle).
     */
    static long[] cpuTimes(int cpu) throws IOException {
        String prefix = "cpu" + cpu + " ";
        for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
            if (line.startsWith(prefix)) {
                return Arrays.stream(line.substring(prefix.length()).trim().split(" +")).limit(7)
                        .mapToLong(Long::parseLong).toArray();
            }
        }
        throw new IOException("/proc/stat has no line for CPU " + cpu);
    }

    /** The share of the time between two {@link #cpuTimes} that the CPU was busy: neither idle nor waiting. */
    static double busyShare(long[] before, long[] after) {
        long total = 0;
        long idle = 0;
        for (int i = 0; i < before.length; i++) {
            long d = after[i] - before[i];
            total += d;
            if (i == 3 || i == 4) { // idle, iowait
                idle += d;
            }
        }
        return total == 0 ? 0 : (double) (total - idle) / total;
    }

    /** Process {@code pid}'s user and system CPU time so far, in clock ticks ({@code /proc/<pid>/stat}). */
    static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // fields from the 3rd on
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime (14th), stime (15th)
    }

    /**
     * The context switches of process {@code pid}'s threads so far, voluntary (a thread that parked or waited)
     * and not (one preempted): {@code /proc/<pid>/task/<tid>/status}. A thread that ended takes its own with it.
     */
    private static long contextSwitches(long pid) throws IOException {
        long switches = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.contains("ctxt_switches:")) { // voluntary_ and nonvoluntary_
                            switches += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (FileSystemException e) {
                    // ENOENT or ESRCH: the thread ended while we read it, and took its switches with it
                }
            }
        }
        return switches;
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
