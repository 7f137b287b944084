package dev.uringactors.actors;

import dev.uringactors.actors.SqPollGroup.SqThreadInfo;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * Watches one SQPOLL thread: every second it finds the thread (through its rings' fdinfo), samples its CPU time
 * and the wake-ups its rings needed, answers {@link GetStats} with the last sample, and says in the log (at most
 * once a minute) when the thread is saturated or woken so often that SQPOLL costs more than it saves, naming the
 * setting to change. Opening rings into the group is {@link SqPollGroup}'s, on the rings' own threads.
 */
final class SqPollSupervisor {
    static final Duration SAMPLE_EVERY = Duration.ofSeconds(1);
    private static final Duration WARN_AT_MOST_EVERY = Duration.ofMinutes(1);
    /** A thread busy this share of its time has no room left. */
    private static final double SATURATED = 0.95;
    /**
     * Each wake-up is the system call SQPOLL exists to save; above this many a second, a plain ring (or a longer
     * idle) is the better deal.
     */
    private static final double TOO_MANY_WAKEUPS = 1000;

    /** What the supervisor takes. */
    sealed interface Command {
    }

    /** Asks for the last sample. */
    record GetStats(ActorRef<SqPollStats> replyTo) implements Command {
    }

    private enum Tick implements Command { INSTANCE }

    private record Sampled(CpuSample cpu, long wakeups, long atNanos) implements Command {
    }

    /** The SQ thread's kernel view and its CPU time in nanoseconds, read together. */
    private record CpuSample(Optional<SqThreadInfo> thread, long cpuNanos) {
    }

    private final SqPollGroup group;
    private final int cpu;
    private final UringExtension uring;
    private final ActorContext<Command> ctx;
    private Sampled last;
    private SqPollStats stats;
    private long lastWarningNanos = Long.MIN_VALUE;

    private SqPollSupervisor(SqPollGroup group, int cpu, UringExtension uring, ActorContext<Command> ctx) {
        this.group = group;
        this.cpu = cpu;
        this.uring = uring;
        this.ctx = ctx;
        this.stats = new SqPollStats(group.index(), -1, cpu, 0, -1, 0, group.rings());
    }

    static Behavior<Command> create(SqPollGroup group, int cpu, UringExtension uring) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            timers.startTimerWithFixedDelay(Tick.INSTANCE, SAMPLE_EVERY);
            return new SqPollSupervisor(group, cpu, uring, ctx).behavior();
        }));
    }

    private Behavior<Command> behavior() {
        return Behaviors.receive(Command.class)
                .onMessageEquals(Tick.INSTANCE, this::sample)
                .onMessage(Sampled.class, this::sampled)
                .onMessage(GetStats.class, g -> {
                    g.replyTo().tell(stats);
                    return Behaviors.same();
                })
                .build();
    }

    /** Reads the thread's CPU time now, and asks the member rings for their wake-up counts. */
    private Behavior<Command> sample() {
        CpuSample cpuSample = cpuSample();
        Set<Integer> members = Set.copyOf(group.rings());
        ctx.pipeToSelf(uring.stats(), (all, failure) -> new Sampled(cpuSample, failure != null ? -1 : all.stream()
                .filter(ring -> members.contains(ring.ring()))
                .mapToLong(ring -> ring.ringStats().sqWakeups()).sum(), System.nanoTime()));
        return Behaviors.same();
    }

    private Behavior<Command> sampled(Sampled now) {
        if (now.wakeups() < 0) {
            return Behaviors.same(); // a ring did not answer (restarting): the next tick tries again
        }
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

    private void warnIfItDoesNotPay() {
        long now = System.nanoTime();
        if (now - lastWarningNanos < WARN_AT_MOST_EVERY.toNanos()) {
            return;
        }
        double busy = stats.workShare() >= 0 ? stats.workShare() : stats.cpuShare();
        if (busy >= SATURATED && stats.rings().size() > 1) {
            ctx.getLog().warn("SQ thread {} (group {}) is busy {}% of its time serving rings {}: it holds them "
                            + "back. Give it fewer rings (more uring.sqpoll.groups) or turn uring.sqpoll.enabled "
                            + "off.", stats.threadId(), stats.group(), Math.round(busy * 100), stats.rings());
            lastWarningNanos = now;
        } else if (stats.wakeupsPerSecond() > TOO_MANY_WAKEUPS) {
            ctx.getLog().warn("SQ thread {} (group {}) was woken {} times a second: each wake-up is the system call "
                            + "SQPOLL is meant to save. Raise uring.sqpoll.idle above the gaps between "
                            + "submissions, or turn uring.sqpoll.enabled off.", stats.threadId(), stats.group(),
                    Math.round(stats.wakeupsPerSecond()));
            lastWarningNanos = now;
        }
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
