package dev.uringactors.micrometer;

import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.RingStatsSnapshots;
import dev.uringactors.actors.SqPollStats;
import dev.uringactors.actors.UringExtension;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ToDoubleFunction;

/**
 * The rings' counters as Micrometer meters, tagged with the ring's index: {@code new
 * UringMeterBinder(UringExtension.get(system)).bindTo(registry)}. Counters: {@code uring.ring.enters},
 * {@code .sqes}, {@code .completions}, {@code .cq.overflows}, {@code .wakeups}, {@code .turns}, {@code .tasks},
 * {@code .stuck.tasks}, {@code .cpu} (seconds of the ring thread), {@code uring.tcp.recv.buffer.shortages},
 * {@code uring.tcp.writes.refused}, {@code uring.tcp.accept.backoffs}. Gauges: {@code uring.ring.requests.in.flight},
 * {@code .backlog}, {@code .generation}, {@code uring.tcp.connections}. A scrape asks each ring once for all its meters (one snapshot per
 * second at most). With SQPOLL, per ring the counter {@code uring.ring.sq.wakeups}, and per SQ thread (tagged
 * {@code group}) the gauges {@code uring.sqpoll.cpu.share}, {@code .work.share} and {@code .wakeups.per.second},
 * from {@link UringExtension#sqPollStats()} (each thread samples itself once a second).
 */
public final class UringMeterBinder implements MeterBinder {
    private final UringExtension uring;
    private final RingStatsSnapshots snapshots;
    /** The SQ threads' last stats, and when they were fetched; guarded by {@code this}. */
    private List<SqPollStats> sqPoll;
    private long sqPollFetchedAt;

    /** Meters for every ring of {@code uring}, read from snapshots at most 1 s old. */
    public UringMeterBinder(UringExtension uring) {
        this.uring = uring;
        this.snapshots = new RingStatsSnapshots(uring, Duration.ofSeconds(1));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (int ring = 0; ring < snapshots.rings(); ring++) {
            Tags tags = Tags.of("ring", String.valueOf(ring));
            counter(registry, "uring.ring.enters", "io_uring_enter calls", ring, tags, s -> s.ringStats().enters());
            counter(registry, "uring.ring.sqes", "SQEs the kernel consumed", ring, tags,
                    s -> s.ringStats().submitted());
            counter(registry, "uring.ring.completions", "CQEs reaped", ring, tags, s -> s.ringStats().completions());
            counter(registry, "uring.ring.cq.overflows", "times the CQ overflowed", ring, tags,
                    s -> s.ringStats().overflowFlushes());
            counter(registry, "uring.ring.wakeups", "wake-ups other threads made", ring, tags, RingLoopStats::wakeSignals);
            counter(registry, "uring.ring.turns", "loop turns", ring, tags, RingLoopStats::turns);
            counter(registry, "uring.ring.tasks", "tasks (actor mailbox runs) run", ring, tags, RingLoopStats::tasksRun);
            counter(registry, "uring.ring.stuck.tasks", "tasks that ran past uring.dispatcher.stuck-task-warning",
                    ring, tags, RingLoopStats::stuckTasks);
            counter(registry, "uring.ring.cpu", "CPU seconds of the ring thread", ring, tags,
                    s -> s.cpuTimeNanos() / 1e9);
            gauge(registry, "uring.ring.requests.in.flight", "requests waiting for their final completion", ring,
                    tags, RingLoopStats::requestsInFlight);
            gauge(registry, "uring.ring.backlog", "requests waiting for room in the SQ", ring, tags,
                    RingLoopStats::backlog);
            gauge(registry, "uring.ring.generation", "1, plus one per restart of the ring", ring, tags,
                    RingLoopStats::generation);
            gauge(registry, "uring.tcp.connections", "TCP connections on the ring", ring, tags,
                    s -> s.tcp().openConnections());
            counter(registry, "uring.tcp.recv.buffer.shortages", "recvs re-armed after ENOBUFS", ring, tags,
                    s -> s.tcp().recvBufferShortages());
            counter(registry, "uring.tcp.writes.refused", "writes refused for a full max-write-queue", ring, tags,
                    s -> s.tcp().writesRefused());
            counter(registry, "uring.tcp.accept.backoffs", "pauses of accepting after an error", ring, tags,
                    s -> s.tcp().acceptBackoffs());
            if (uring.settings().sqpoll().enabled()) {
                counter(registry, "uring.ring.sq.wakeups", "io_uring_enter calls made to wake the SQ thread", ring,
                        tags, s -> s.ringStats().sqWakeups());
            }
        }
        int groups = uring.settings().sqpoll().enabled() ? uring.settings().sqpoll().groups() : 0;
        for (int group = 0; group < groups; group++) {
            Tags tags = Tags.of("group", String.valueOf(group));
            sqPollGauge(registry, "uring.sqpoll.cpu.share", "share of a CPU the SQ thread used", group, tags,
                    SqPollStats::cpuShare);
            sqPollGauge(registry, "uring.sqpoll.work.share", "share of its time the SQ thread worked (-1: unknown)",
                    group, tags, SqPollStats::workShare);
            sqPollGauge(registry, "uring.sqpoll.wakeups.per.second", "wake-ups the SQ thread needed", group, tags,
                    SqPollStats::wakeupsPerSecond);
        }
    }

    private void sqPollGauge(MeterRegistry registry, String name, String description, int group, Tags tags,
                             ToDoubleFunction<SqPollStats> value) {
        Gauge.builder(name, uring, u -> {
            List<SqPollStats> stats = sqPollStats();
            return group < stats.size() ? value.applyAsDouble(stats.get(group)) : Double.NaN;
        }).description(description).tags(tags).register(registry);
    }

    /** The SQ threads' stats, fetched again when older than a second; the last ones if they do not come in 1 s. */
    private synchronized List<SqPollStats> sqPollStats() {
        long now = System.nanoTime();
        if (sqPoll == null || now - sqPollFetchedAt >= 1_000_000_000L) {
            sqPoll = sqPoll == null ? List.of() : sqPoll;
            try {
                sqPoll = uring.sqPollStats().toCompletableFuture().get(1, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // keep the last ones: a scrape must not fail or hang on a busy actor
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sqPollFetchedAt = now;
        }
        return sqPoll;
    }

    private void counter(MeterRegistry registry, String name, String description, int ring, Tags tags,
                         ToDoubleFunction<RingLoopStats> value) {
        // The state is the extension, which lives as long as its rings: Micrometer holds the state only weakly.
        FunctionCounter.builder(name, uring, u -> value.applyAsDouble(snapshots.get(ring)))
                .description(description).tags(tags).register(registry);
    }

    private void gauge(MeterRegistry registry, String name, String description, int ring, Tags tags,
                       ToDoubleFunction<RingLoopStats> value) {
        Gauge.builder(name, uring, u -> value.applyAsDouble(snapshots.get(ring)))
                .description(description).tags(tags).register(registry);
    }
}
