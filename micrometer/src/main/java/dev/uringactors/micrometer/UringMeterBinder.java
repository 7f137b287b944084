package dev.uringactors.micrometer;

import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.RingStatsSnapshots;
import dev.uringactors.actors.UringExtension;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.function.ToDoubleFunction;

/**
 * The rings' counters as Micrometer meters, tagged with the ring's index: {@code new
 * UringMeterBinder(UringExtension.get(system)).bindTo(registry)}. Counters: {@code uring.ring.enters},
 * {@code .sqes}, {@code .completions}, {@code .cq.overflows}, {@code .wakeups}, {@code .turns}, {@code .tasks},
 * {@code .stuck.tasks}, {@code .cpu} (seconds of the ring thread), {@code uring.tcp.recv.buffer.shortages},
 * {@code uring.tcp.writes.refused}, {@code uring.tcp.accept.backoffs}. Gauges: {@code uring.ring.requests.in.flight},
 * {@code .backlog}, {@code .generation}, {@code uring.tcp.connections}. A scrape asks each ring once for all its meters (one snapshot per
 * second at most).
 */
public final class UringMeterBinder implements MeterBinder {
    private final UringExtension uring;
    private final RingStatsSnapshots snapshots;

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
        }
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
