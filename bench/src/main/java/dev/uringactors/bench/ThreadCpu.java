package dev.uringactors.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Threads of this process by name, their CPU time, and pinning one of them to a CPU. */
final class ThreadCpu {
    private ThreadCpu() {
    }

    /** The id of this process's first thread whose name starts with {@code prefix}, or -1. */
    static int find(String prefix) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.filter(t -> comm(t).startsWith(prefix))
                    .mapToInt(t -> Integer.parseInt(t.getFileName().toString())).min().orElse(-1);
        }
    }

    private static String comm(Path task) {
        try {
            return Files.readString(task.resolve("comm")).trim();
        } catch (IOException e) {
            return ""; // the thread ended
        }
    }

    /** Nanoseconds thread {@code tid} has spent on a CPU (its schedstat). */
    static long nanos(int tid) throws IOException {
        String schedstat = Files.readString(Path.of("/proc/self/task/" + tid + "/schedstat"));
        return Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
    }

    /** Pins thread {@code tid} (only it) to {@code cpu} with taskset(1). */
    static void pin(int tid, int cpu) throws Exception {
        Process p = new ProcessBuilder("taskset", "-p", "-c", String.valueOf(cpu), String.valueOf(tid))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("taskset -p -c " + cpu + " " + tid + " failed: " + out);
        }
    }
}
