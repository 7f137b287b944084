package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.wait.CompletionForecast;
import dev.uringactors.ring.wait.LatencyEstimate;

import java.util.ArrayDeque;

/**
 * The requests in flight whose completion time can be expected (file reads and writes), per kind, with each
 * kind's estimate: the forecast that tells a polling wait strategy when to start polling, and that it need not
 * poll at all while only sockets, timeouts and the wake-up read are in flight. Each kind keeps its requests in
 * submission order; the oldest one still in flight is the one due first. When each went in is kept in its slot.
 */
final class DueCompletions implements CompletionForecast {
    private static final int KINDS = Opcode.values().length;

    private final int window;
    private final SlotTable slots;
    private final LatencyEstimate[] estimates = new LatencyEstimate[KINDS];
    @SuppressWarnings("unchecked")
    private final ArrayDeque<RingOp>[] inFlight = new ArrayDeque[KINDS];

    DueCompletions(int window, SlotTable slots) {
        this.window = window;
        this.slots = slots;
    }

    /** {@code op} (with a latency kind) was put in the SQ at {@code now}. */
    void submitted(RingOp op, long now) {
        int kind = op.latencyKind();
        if (inFlight[kind] == null) {
            inFlight[kind] = new ArrayDeque<>();
            estimates[kind] = new LatencyEstimate(window);
        }
        slots.submittedAt(op.userData, now);
        inFlight[kind].add(op);
    }

    /** {@code op}'s final completion arrived at {@code now}. */
    void completed(RingOp op, long now) {
        int kind = op.latencyKind();
        estimates[kind].sample(now - slots.submittedAt(op.userData));
        slots.submittedAt(op.userData, -1);
        dropCompletedHeads(inFlight[kind]);
    }

    /** Forgets every request (the ring failed or closed): none of them will complete here. */
    void clear() {
        for (ArrayDeque<RingOp> queue : inFlight) {
            if (queue != null) {
                queue.forEach(op -> slots.submittedAt(op.userData, -1));
                queue.clear();
            }
        }
    }

    private void dropCompletedHeads(ArrayDeque<RingOp> queue) {
        while (!queue.isEmpty() && slots.submittedAt(queue.peek().userData) < 0) {
            queue.poll();
        }
    }

    @Override
    public long pollFromNanos() {
        long from = NOTHING_EXPECTED;
        for (int kind = 0; kind < KINDS; kind++) {
            ArrayDeque<RingOp> queue = inFlight[kind];
            if (queue != null && !queue.isEmpty()) {
                long submittedAt = slots.submittedAt(queue.peek().userData);
                from = Math.min(from, submittedAt + Math.max(0, estimates[kind].nanos() / 2));
            }
        }
        return from;
    }

    /** The estimate for one kind of request, or -1 before its first sample (for stats and tests). */
    long estimateNanos(Opcode kind) {
        LatencyEstimate estimate = estimates[kind.ordinal()];
        return estimate == null ? -1 : estimate.nanos();
    }
}
