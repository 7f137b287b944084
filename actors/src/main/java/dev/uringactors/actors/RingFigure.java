package dev.uringactors.actors;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * One figure of a ring's {@link RingLoopStats}, as JMX and Micrometer show it: {@link #ALL} is the one list both
 * are made from (each ring's MBean has an attribute per figure; {@code UringMeterBinder} a meter per figure,
 * tagged with the ring).
 *
 * @param attribute the JMX attribute's name
 * @param meter the Micrometer meter's name
 * @param description what it counts
 * @param kind whether it only grows, or says how things are now
 * @param value the figure, from a ring's stats
 */
public record RingFigure(String attribute, String meter, String description, Kind kind,
                         ToLongFunction<RingLoopStats> value) {
    /** What a figure is. */
    public enum Kind {
        /** A count that only grows: a Micrometer counter. */
        COUNT,
        /** Nanoseconds of time used, which only grow: a Micrometer counter in seconds. */
        NANOS,
        /** How things are now: a Micrometer gauge. */
        LEVEL
    }

    /** Every figure, in the order JMX lists them. */
    public static final List<RingFigure> ALL = List.of(
            new RingFigure("Generation", "uring.ring.generation",
                    "1 for the first ring at this index, one more after each restart", Kind.LEVEL,
                    RingLoopStats::generation),
            new RingFigure("Enters", "uring.ring.enters", "io_uring_enter calls", Kind.COUNT,
                    s -> s.ringStats().enters()),
            new RingFigure("Submitted", "uring.ring.sqes", "SQEs the kernel consumed", Kind.COUNT,
                    s -> s.ringStats().submitted()),
            new RingFigure("Completions", "uring.ring.completions", "CQEs reaped", Kind.COUNT,
                    s -> s.ringStats().completions()),
            new RingFigure("OverflowFlushes", "uring.ring.cq.overflows",
                    "times the CQ had overflowed and the kept CQEs were flushed back: should stay near 0", Kind.COUNT,
                    s -> s.ringStats().overflowFlushes()),
            new RingFigure("DroppedCompletions", "uring.ring.cq.dropped", "CQEs the kernel lost: should stay 0",
                    Kind.COUNT, s -> s.ringStats().droppedCompletions()),
            new RingFigure("SqWakeups", "uring.ring.sq.wakeups",
                    "io_uring_enter calls made to wake the SQ thread (0 without SQPOLL)", Kind.COUNT,
                    s -> s.ringStats().sqWakeups()),
            new RingFigure("WakeSignals", "uring.ring.wakeups", "wake-ups other threads made", Kind.COUNT,
                    RingLoopStats::wakeSignals),
            new RingFigure("Turns", "uring.ring.turns", "turns of the ring loop: submit, reap, run tasks", Kind.COUNT,
                    RingLoopStats::turns),
            new RingFigure("TasksRun", "uring.ring.tasks", "tasks (actor mailboxes, stream stages) the ring thread ran",
                    Kind.COUNT, RingLoopStats::tasksRun),
            new RingFigure("StuckTasks", "uring.ring.stuck.tasks",
                    "tasks that ran longer than uring.dispatcher.stuck-task-warning", Kind.COUNT,
                    RingLoopStats::stuckTasks),
            new RingFigure("CpuTimeNanos", "uring.ring.cpu", "CPU time the ring's thread has used", Kind.NANOS,
                    RingLoopStats::cpuTimeNanos),
            new RingFigure("RequestsInFlight", "uring.ring.requests.in.flight",
                    "requests submitted and not yet completed", Kind.LEVEL, RingLoopStats::requestsInFlight),
            new RingFigure("Backlog", "uring.ring.backlog", "requests waiting for room in the SQ", Kind.LEVEL,
                    RingLoopStats::backlog),
            new RingFigure("OpenConnections", "uring.tcp.connections", "TCP connections on the ring now", Kind.LEVEL,
                    s -> s.tcp().openConnections()),
            new RingFigure("RecvBufferShortages", "uring.tcp.recv.buffer.shortages",
                    "multishot recvs re-armed after running out of provided buffers (ENOBUFS)", Kind.COUNT,
                    s -> s.tcp().recvBufferShortages()),
            new RingFigure("WritesRefused", "uring.tcp.writes.refused",
                    "writes refused for a full uring.tcp.max-write-queue", Kind.COUNT, s -> s.tcp().writesRefused()),
            new RingFigure("AcceptBackoffs", "uring.tcp.accept.backoffs",
                    "times a listener paused accepting after an error (EMFILE, ENFILE...)", Kind.COUNT,
                    s -> s.tcp().acceptBackoffs()));
}
