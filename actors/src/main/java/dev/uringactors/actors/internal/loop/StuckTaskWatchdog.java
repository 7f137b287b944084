package dev.uringactors.actors.internal.loop;

import org.apache.pekko.dispatch.Mailbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Looks at every ring loop a few times per {@code uring.dispatcher.stuck-task-warning}: a loop whose count of
 * started tasks has not moved for that long while a task runs is held up by that one task (a handler in an
 * endless loop, or one that blocks), and so is every other actor and request on its ring. Each such incident is
 * logged once, with the actor's path and the ring thread's stack, and counted in the loop's stats.
 */
final class StuckTaskWatchdog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StuckTaskWatchdog.class);
    /** Where the frames of a stuck task's stack come from that are not the application's. */
    private static final List<String> NOT_THE_APPLICATIONS = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.",
            "scala.", "org.apache.pekko.", "com.typesafe.", "dev.uringactors.ring.", "dev.uringactors.config.",
            "dev.uringactors.actors.", "dev.uringactors.http.");

    private final List<RingLoop> loops;
    private final long thresholdNanos;
    private final Duration threshold;
    private final Duration period;
    private final Thread thread;
    /** Per loop: the task count last seen, since when (nanoTime), and the count already reported. */
    private final long[] lastCount;
    private final long[] lastChange;
    private final long[] reported;

    StuckTaskWatchdog(List<RingLoop> loops, Duration threshold) {
        this.loops = loops;
        this.threshold = threshold;
        this.thresholdNanos = threshold.toNanos();
        this.lastCount = new long[loops.size()];
        this.lastChange = new long[loops.size()];
        this.reported = new long[loops.size()];
        Arrays.fill(reported, -1);
        this.period = Duration.ofNanos(Math.max(1, thresholdNanos / 4));
        this.thread = new Thread(this::watch, "uring-stuck-task-watchdog");
        thread.setDaemon(true);
        thread.start();
    }

    private void watch() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(period.toMillis(), period.toNanosPart() % 1_000_000);
                check();
            }
        } catch (InterruptedException e) {
            // close(): the extension shuts down
        }
    }

    private void check() {
        long now = System.nanoTime();
        for (int i = 0; i < loops.size(); i++) {
            RingLoop loop = loops.get(i);
            long count = loop.tasksStarted();
            Runnable task = loop.runningTask();
            if (count != lastCount[i] || task == null) {
                lastCount[i] = count;
                lastChange[i] = now;
            } else if (now - lastChange[i] >= thresholdNanos && reported[i] != count) {
                reported[i] = count; // once per incident
                loop.countStuckTask();
                StackTraceElement[] frames = loop.thread().getStackTrace();
                log.warn("ring {}: one task has run for more than {} (uring.dispatcher.stuck-task-warning) on the "
                        + "ring thread ({}){}, holding up every actor and request on that ring; a call that blocks "
                        + "belongs on a dispatcher of its own. The thread is at:{}", loop.index(), threshold,
                        describe(task), firstOwnFrame(frames), stack(frames));
            }
        }
    }

    private static String describe(Runnable task) {
        return task instanceof Mailbox mailbox && mailbox.actor() != null
                ? "actor " + mailbox.actor().self().path() : "task " + task;
    }

    /** The top frame of the application's own code (not the JDK's, Scala's, Pekko's or this library's), if any. */
    private static String firstOwnFrame(StackTraceElement[] frames) {
        for (StackTraceElement frame : frames) {
            String type = frame.getClassName();
            if (NOT_THE_APPLICATIONS.stream().noneMatch(type::startsWith)) {
                return ", in " + frame;
            }
        }
        return "";
    }

    private static String stack(StackTraceElement[] frames) {
        StringBuilder b = new StringBuilder();
        for (StackTraceElement frame : frames) {
            b.append("\n\tat ").append(frame);
        }
        return b.toString();
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
