package dev.uringactors.ring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * This process's threads, from /proc/self/task, and among them io_uring's io-wq workers: kernel threads of the
 * process named {@code iou-wrk-<tid>} after the thread whose requests they run.
 */
public final class ProcessThreads {
    private static final String WORKER = "iou-wrk-";

    private ProcessThreads() {
    }

    /** Every thread, the io-wq workers included. */
    public static long all() {
        return count(comm -> true);
    }

    /** The io-wq workers of every thread. */
    public static long ioWorkers() {
        return count(comm -> comm.startsWith(WORKER));
    }

    /** The io-wq workers of the thread {@code tid} (the io-wq is per submitting thread). */
    public static long ioWorkersOf(long tid) {
        return count(comm -> comm.equals(WORKER + tid));
    }

    /** The SQPOLL threads of every ring of the process ({@code iou-sqp-<pid>}). */
    public static long sqPollThreads() {
        return count(comm -> comm.startsWith("iou-sqp-"));
    }

    /** The kernel's id of the calling thread. */
    public static long currentTid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long count(Predicate<String> comm) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.map(ProcessThreads::comm).filter(c -> c != null && comm.test(c)).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The thread's name, or null when it ended between the listing and the read. */
    private static String comm(Path task) {
        try {
            return Files.readString(task.resolve("comm")).trim();
        } catch (IOException e) {
            return null;
        }
    }
}
