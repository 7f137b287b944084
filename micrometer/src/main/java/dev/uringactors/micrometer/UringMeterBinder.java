package dev.uringactors.micrometer;

import dev.uringactors.actors.RingFigure;
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
import java.util.function.ToLongFunction;

/**
 * The rings' counters as Micrometer meters, tagged with the ring's index: {@code new
 * UringMeterBinder(UringExtension.get(system)).bindTo(registry)}. A meter per {@link RingFigure} (the list the JMX
 * beans are made from too): a counter for a count ({@code uring.ring.enters}, {@code .sqes}, {@code .completions},
 * {@code .cq.overflows}, {@code .cq.dropped}, {@code .sq.wakeups}, {@code .wakeups}, {@code .turns},
 * {@code .tasks}, {@code .stuck.tasks}, {@code .cpu} in seconds of the ring thread,
 * {@code uring.tcp.recv.buffer.shortages}, {@code uring.tcp.writes.refused}, {@code uring.tcp.accept.backoffs}),
 * a gauge for a level ({@code uring.ring.generation}, {@code .requests.in.flight}, {@code .backlog},
 * {@code uring.tcp.connections}). A scrape asks each ring once for all its meters (one snapshot per second at
 * most). With SQPOLL, per SQ thread (tagged {@code group}) the gauges {@code uring.sqpoll.cpu.share},
 * {@code .work.share} and {@code .wakeups.per.second}, from {@link UringExtension#sqPollStats()} (each thread
 * samples itself once a second). The gauge {@code uring.backend}, always 1, says by its tag {@code backend}
 * ({@code io-uring} or {@code jdk}) which backend runs; under the JDK backend it is the only meter, there being no
 * ring to count.
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
        Gauge.builder("uring.backend", uring, u -> 1)
                .description("which backend runs (tag backend: io-uring or jdk), chosen by uring.backend at start")
                .tags(Tags.of("backend", uring.backend().settingValue())).register(registry);
        for (int ring = 0; ring < snapshots.rings(); ring++) {
            Tags tags = Tags.of("ring", String.valueOf(ring));
            for (RingFigure figure : RingFigure.ALL) {
                register(registry, figure, ring, tags);
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

    /** A counter or a gauge of {@code figure}, for ring {@code ring}. */
    private void register(MeterRegistry registry, RingFigure figure, int ring, Tags tags) {
        ToLongFunction<RingLoopStats> value = figure.value();
        // The state is the extension, which lives as long as its rings: Micrometer holds the state only weakly.
        switch (figure.kind()) {
            case COUNT -> FunctionCounter.builder(figure.meter(), uring,
                            u -> value.applyAsLong(snapshots.get(ring)))
                    .description(figure.description()).tags(tags).register(registry);
            case NANOS -> FunctionCounter.builder(figure.meter(), uring,
                            u -> value.applyAsLong(snapshots.get(ring)) / 1e9)
                    .baseUnit("seconds").description(figure.description()).tags(tags).register(registry);
            case LEVEL -> Gauge.builder(figure.meter(), uring, u -> value.applyAsLong(snapshots.get(ring)))
                    .description(figure.description()).tags(tags).register(registry);
        }
    }
}
