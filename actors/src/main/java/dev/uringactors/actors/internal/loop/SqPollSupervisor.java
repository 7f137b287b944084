package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.SqPollStats;
import dev.uringactors.actors.internal.issue.SqPollGroup;
import dev.uringactors.actors.internal.issue.SqPollGroup.SqThreadInfo;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Watches one SQPOLL thread: every second it finds the thread (through its rings' fdinfo), samples its CPU time
 * and the wake-ups its rings needed, answers {@link GetStats} with the last sample, and says in the log (at most
 * once a minute) when the thread is saturated, spins a CPU away while it rarely works, or is woken so often that
 * SQPOLL costs more than it saves, naming the setting to change. It sends no message to the rings: a request
 * would be a submission that keeps the thread awake. Opening rings into the group is {@link SqPollGroup}'s, on
 * the rings' own threads.
 */
public final class SqPollSupervisor {
    static final Duration SAMPLE_EVERY = Duration.ofSeconds(1);
    private static final Duration WARN_AT_MOST_EVERY = Duration.ofMinutes(1);
    /** A thread busy this share of its time has no room left. */
    private static final double SATURATED = 0.95;
    /**
     * Each wake-up is the system call SQPOLL exists to save; above this many a second, a plain ring (or a longer
     * idle) is the better deal.
     */
    private static final double TOO_MANY_WAKEUPS = 1000;
    /** A thread that keeps this share of a CPU busy while working less than the next share mostly spins. */
    private static final double MOSTLY_SPINNING_CPU = 0.5;
    private static final double MOSTLY_SPINNING_WORK = 0.05;
    /** Samples in a row that do not pay before the log says so. */
    private static final int SUSTAINED = 3;

    /** What the supervisor takes. */
    sealed interface Command {
    }

    /** Asks for the last sample. */
    record GetStats(ActorRef<SqPollStats> replyTo) implements Command {
    }

    private enum Tick implements Command { INSTANCE }

    /** One sample: the thread's CPU, the members' wake-ups so far, and when. */
    private record Sampled(CpuSample cpu, long wakeups, long atNanos) {
    }

    /** The SQ thread's kernel view and its CPU time in nanoseconds, read together. */
    private record CpuSample(Optional<SqThreadInfo> thread, long cpuNanos) {
    }

    private final SqPollGroup group;
    private final int cpu;
    private final ActorContext<Command> ctx;
    private Sampled last;
    private SqPollStats stats;
    /** When the log last said something, or null: at most once a minute. */
    private Long lastWarningNanos;
    /** Samples in a row in which the thread did not pay. */
    private int notPaying;

    private SqPollSupervisor(SqPollGroup group, int cpu, ActorContext<Command> ctx) {
        this.group = group;
        this.cpu = cpu;
        this.ctx = ctx;
        this.stats = new SqPollStats(group.index(), -1, cpu, 0, -1, 0, group.rings());
    }

    static Behavior<Command> create(SqPollGroup group, int cpu) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            timers.startTimerWithFixedDelay(Tick.INSTANCE, SAMPLE_EVERY);
            return new SqPollSupervisor(group, cpu, ctx).behavior();
        }));
    }

    private Behavior<Command> behavior() {
        return Behaviors.receive(Command.class)
                .onMessageEquals(Tick.INSTANCE, this::sample)
                .onMessage(GetStats.class, g -> {
                    g.replyTo().tell(stats);
                    return Behaviors.same();
                })
                .build();
    }

    /**
     * Reads the thread's CPU time and the members' wake-up counts, without a message to any ring: a request would
     * be a submission, and one a second would keep an SQ thread with the default idle from ever sleeping.
     */
    private Behavior<Command> sample() {
        Sampled now = new Sampled(cpuSample(), group.wakeups(), System.nanoTime());
        if (last != null && now.cpu().thread().isPresent() && last.cpu().thread().isPresent()
                && now.cpu().thread().get().threadId() == last.cpu().thread().get().threadId()) {
            double seconds = (now.atNanos() - last.atNanos()) / 1e9;
            SqThreadInfo t0 = last.cpu().thread().get();
            SqThreadInfo t1 = now.cpu().thread().get();
            double workShare = -1;
            if (t0.totalMicros().isPresent() && t1.totalMicros().isPresent()
                    && t1.totalMicros().getAsLong() > t0.totalMicros().getAsLong()) {
                workShare = (double) (t1.workMicros().orElse(0) - t0.workMicros().orElse(0))
                        / (t1.totalMicros().getAsLong() - t0.totalMicros().getAsLong());
            }
            stats = new SqPollStats(group.index(), t1.threadId(), cpu,
                    (now.cpu().cpuNanos() - last.cpu().cpuNanos()) / 1e9 / seconds, workShare,
                    Math.max(0, now.wakeups() - last.wakeups()) / seconds, group.rings());
            warnIfItDoesNotPay();
        }
        last = now;
        return Behaviors.same();
    }

    /**
     * Says in the log, at most once a minute, why the SQ thread does not pay, once it has not for
     * {@link #SUSTAINED} samples in a row: an SQ thread spins for its idle time after start and after each burst,
     * which alone is no reason to change anything.
     */
    private void warnIfItDoesNotPay() {
        String why = whyItDoesNotPay(stats);
        notPaying = why == null ? 0 : notPaying + 1;
        long now = System.nanoTime();
        boolean quiet = lastWarningNanos == null || now - lastWarningNanos >= WARN_AT_MOST_EVERY.toNanos();
        if (notPaying >= SUSTAINED && quiet) {
            ctx.getLog().warn("SQ thread {} (group {}, rings {}): {}", stats.threadId(), stats.group(), stats.rings(),
                    why);
            lastWarningNanos = now;
        }
    }

    /** Why an SQ thread with these figures costs more than it gives, naming the setting to change; or null. */
    static String whyItDoesNotPay(SqPollStats stats) {
        double busy = stats.workShare() >= 0 ? stats.workShare() : stats.cpuShare();
        if (busy >= SATURATED && stats.rings().size() > 1) {
            return "busy " + Math.round(busy * 100) + "% of its time, it holds its rings back. Give it fewer rings "
                    + "(more uring.sqpoll.groups) or turn uring.sqpoll.enabled off.";
        }
        if (stats.cpuShare() >= MOSTLY_SPINNING_CPU && stats.workShare() >= 0
                && stats.workShare() < MOSTLY_SPINNING_WORK) {
            return "it keeps " + Math.round(stats.cpuShare() * 100) + "% of a CPU busy but works "
                    + Math.round(stats.workShare() * 100) + "% of its time, spinning for submissions that rarely "
                    + "come. Lower uring.sqpoll.idle, or turn uring.sqpoll.enabled off.";
        }
        if (stats.wakeupsPerSecond() > TOO_MANY_WAKEUPS) {
            return "woken " + Math.round(stats.wakeupsPerSecond()) + " times a second, and each wake-up is the "
                    + "system call SQPOLL is meant to save. Raise uring.sqpoll.idle above the gaps between "
                    + "submissions, or turn uring.sqpoll.enabled off.";
        }
        return null;
    }

    private CpuSample cpuSample() {
        Optional<SqThreadInfo> thread = group.sqThread();
        return new CpuSample(thread, thread.map(t -> threadCpuNanos(t.threadId())).orElse(0L));
    }

    /** A thread's CPU time, from its schedstat (nanoseconds on the CPU), or 0 if it cannot be read. */
    private static long threadCpuNanos(int tid) {
        try {
            String schedstat = Files.readString(Path.of("/proc/self/task/" + tid + "/schedstat"));
            return Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
