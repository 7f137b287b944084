package dev.uringactors.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a server process spent on a run, per operation: its CPU time (with its children's, such as nginx's
 * workers), and for a JVM the bytes its threads allocated, those of the ring threads ({@code uring-ring-N}) apart.
 * The bytes come from {@code jcmd <pid> Thread.print -e}, which gives each thread's allocated bytes in three
 * significant digits: a run that allocates less than some hundred MB is measured coarsely. It lists the threads
 * alive: the bytes of a thread that ended during the run are not counted (a server's ring threads live as long
 * as it does), nor is the CPU of a child that ended. For a JVM with the rings' beans ({@code uring.jmx = on}), what
 * the rings did per operation too ({@link RingCounters}), and the CPU of the kernel's io-wq workers of the
 * process ({@code iou-wrk-N} threads; those alive at the end: a worker idle for some seconds exits).
 */
final class ServerCost {
    private static final Pattern THREAD = Pattern.compile(
            "^\"(.*)\" .*?allocated=(\\d+)([BKMG]) .*?nid=(0x[0-9a-f]+)", Pattern.MULTILINE);
    private static final String RING_THREAD = "uring-ring-";

    /** The CPU, allocation and ring figures of a process at one moment. */
    private record Snapshot(long cpuTicks, Map<String, Long> allocatedByThread, RingCounters.Totals rings,
                            Map<String, Long> ioWorkerTicks) {
    }

    /** Per operation: what the rings did, and the CPU of the io-wq workers, in microseconds. */
    record RingWork(double sqes, double enters, double completions, double turns, double tasks,
                    double ioWorkerMicros) {
        String describe() {
            return String.format(Locale.ROOT, "%.2f SQEs, %.2f enters, %.2f CQEs, %.2f turns, %.2f tasks, "
                    + "iou-wrk CPU %.2f us", sqes, enters, completions, turns, tasks, ioWorkerMicros);
        }
    }

    /**
     * Per operation: CPU microseconds, and bytes allocated by the ring threads and by every thread (NaN: no JVM),
     * and what the rings did (null: no JVM, or no ring beans).
     */
    record PerOperation(double cpuMicros, double ringBytes, double allBytes, RingWork ring) {
        /** e.g. "CPU 2.41 us, 412 B on the ring threads (530 B in all); 3.00 SQEs, ...", or "CPU 1.10 us". */
        String describe() {
            return Double.isNaN(allBytes) ? String.format(Locale.ROOT, "CPU %.2f us", cpuMicros)
                    : String.format(Locale.ROOT, "CPU %.2f us, %.0f B on the ring threads (%.0f B in all)%s",
                    cpuMicros, ringBytes, allBytes, ring == null ? "" : "; " + ring.describe());
        }
    }

    private final long pid;
    private final boolean jvm;
    private final Snapshot before;

    private ServerCost(long pid, boolean jvm) throws IOException, InterruptedException {
        this.pid = pid;
        this.jvm = jvm;
        // jcmd costs the JVM some milliseconds of CPU: its reads come before the CPU's here, after it at the end
        Map<String, Long> allocated = jvm ? allocatedByThread(pid) : Map.of();
        RingCounters.Totals rings = jvm ? RingCounters.ofOrNone(pid) : null;
        this.before = new Snapshot(treeCpuTicks(pid), allocated, rings, ioWorkerTicks(pid));
    }

    /** Starts counting for the JVM of process {@code pid}. */
    static ServerCost ofJvm(long pid) throws IOException, InterruptedException {
        return new ServerCost(pid, true);
    }

    /** Starts counting CPU only, for a server that is no JVM (nginx, redis-server). */
    static ServerCost ofNative(long pid) throws IOException, InterruptedException {
        return new ServerCost(pid, false);
    }

    /** What was spent since the start, divided by the {@code operations} done meanwhile. */
    PerOperation per(double operations) throws IOException, InterruptedException {
        long cpuTicks = treeCpuTicks(pid);
        Map<String, Long> ioWorkerTicks = ioWorkerTicks(pid);
        Snapshot after = new Snapshot(cpuTicks, jvm ? allocatedByThread(pid) : Map.of(),
                jvm ? RingCounters.ofOrNone(pid) : null, ioWorkerTicks);
        double cpuMicros = (after.cpuTicks - before.cpuTicks) * 10_000.0 / operations; // a tick is 10 ms (USER_HZ)
        if (!jvm) {
            return new PerOperation(cpuMicros, Double.NaN, Double.NaN, null);
        }
        long ring = 0;
        long all = 0;
        for (Map.Entry<String, Long> thread : after.allocatedByThread.entrySet()) {
            Long was = before.allocatedByThread.get(thread.getKey());
            long bytes = thread.getValue() - (was == null ? 0 : was); // a thread started since: all of its own
            all += bytes;
            ring += thread.getKey().startsWith(RING_THREAD) ? bytes : 0;
        }
        RingCounters.Totals rings = after.rings == null || before.rings == null ? null
                : after.rings.minus(before.rings);
        RingWork work = rings == null || rings.enters() == 0 ? null : new RingWork(rings.sqes() / operations,
                rings.enters() / operations, rings.completions() / operations, rings.turns() / operations,
                rings.tasks() / operations, ticksSince(before.ioWorkerTicks, after.ioWorkerTicks) * 10_000.0
                / operations);
        return new PerOperation(cpuMicros, ring / operations, all / operations, work);
    }

    /** The ticks the threads alive {@code after} spent since {@code before} (all of theirs, for one started since). */
    private static long ticksSince(Map<String, Long> before, Map<String, Long> after) {
        long ticks = 0;
        for (Map.Entry<String, Long> thread : after.entrySet()) {
            ticks += thread.getValue() - before.getOrDefault(thread.getKey(), 0L);
        }
        return ticks;
    }

    /** The user and system CPU ticks of the process's io-wq workers alive now ({@code iou-wrk-N}), by thread id. */
    private static Map<String, Long> ioWorkerTicks(long pid) throws IOException {
        Map<String, Long> ticks = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int name = stat.indexOf('(');
                    if (stat.startsWith("iou-wrk", name + 1)) {
                        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        ticks.put(task.getFileName().toString(),
                                Long.parseLong(fields[11]) + Long.parseLong(fields[12])); // utime, stime
                    }
                } catch (FileSystemException e) {
                    // the worker ended meanwhile
                }
            }
        }
        return ticks;
    }

    /** The user and system CPU ticks of {@code pid} and of its children, theirs so far (not only the reaped ones). */
    private static long treeCpuTicks(long pid) throws IOException {
        long ticks = HttpLoad.cpuTicks(pid);
        for (long child : children(pid)) {
            try {
                ticks += treeCpuTicks(child);
            } catch (FileSystemException e) {
                // the child ended meanwhile: what it spent is in its parent's cutime, not counted here
            }
        }
        return ticks;
    }

    private static long[] children(long pid) throws IOException {
        String children = Files.readString(Path.of("/proc", String.valueOf(pid), "task", String.valueOf(pid),
                "children")).trim();
        return children.isEmpty() ? new long[0]
                : java.util.Arrays.stream(children.split(" ")).mapToLong(Long::parseLong).toArray();
    }

    /** The jcmd of the JDK this runs on (a JDK's own tools attach to a JVM of its version). */
    static String jcmd() {
        return Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    }

    /** Each thread's allocated bytes, keyed by its name and native id (a pool may reuse names). */
    private static Map<String, Long> allocatedByThread(long pid) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(jcmd(), String.valueOf(pid), "Thread.print", "-e")
                .redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(30, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " Thread.print -e failed: " + out);
        }
        Map<String, Long> bytes = new HashMap<>();
        Matcher m = THREAD.matcher(out);
        while (m.find()) {
            long unit = switch (m.group(3)) {
                case "K" -> 1L << 10;
                case "M" -> 1L << 20;
                case "G" -> 1L << 30;
                default -> 1;
            };
            bytes.put(m.group(1) + " " + m.group(4), Long.parseLong(m.group(2)) * unit);
        }
        if (bytes.isEmpty()) {
            throw new IOException("jcmd " + pid + " Thread.print -e listed no thread's allocated bytes: " + out);
        }
        return bytes;
    }
}
