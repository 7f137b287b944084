package dev.uringactors.actors.internal.issue;

import dev.uringactors.actors.RingOverloadedException;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.CompletionHandler;
import dev.uringactors.ring.CqeFlags;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.RingStats;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.SqeFlags;
import dev.uringactors.ring.wait.CompletionForecast;
import dev.uringactors.ring.wait.WaitStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The only submitter of one ring, living on its loop thread: admits requests, turns ops into SQEs, keeps them in
 * a {@link SlotTable} until their final completion, and answers each exactly once. The ring itself, and all that
 * is registered with it, is the current {@link RingGeneration}; after a fault the issuer drains it and opens the
 * next.
 *
 * <p>Admission ({@code uring.admission}): at most {@code maxInFlight} callers' requests are in the kernel at once;
 * more wait in a queue, holding no native memory (an op takes its buffer as it is let in); past
 * {@code maxWaiting} a request is refused at once with {@link RingOverloadedException}. What connections and
 * listeners issue for themselves is exempt: each owner bounds its own. An op let in that finds the SQ full waits
 * in the backlog, in order, and goes in as soon as there is room.
 */
public final class RingIssuer implements CompletionHandler {
    private static final Logger log = LoggerFactory.getLogger(RingIssuer.class);

    private final RingSpec spec;
    private final int maxInFlight;
    private final int maxWaiting;
    private final BufferPool buffers;
    private final List<RingResource> resources = new ArrayList<>();
    /** File requests in flight and their completion times, for a polling wait strategy; null when none polls. */
    private final DueCompletions due;
    private RingGeneration generation;
    private final SlotTable slots = new SlotTable();
    /** Ops let into the kernel that wait for room in the SQ (or a short write's next attempt). */
    private final ArrayDeque<RingOp> backlog = new ArrayDeque<>();
    /** Requests not yet let in: they hold no slot and no native memory. */
    private final ArrayDeque<RingOp> waiting = new ArrayDeque<>();
    /** Requests let in and not yet finished. */
    private int requestsAdmitted;
    private Consumer<Throwable> faultListener = e -> log.error("ring fault with no supervisor to report to", e);
    /** Why the ring is closed for good (the answer to every later request), or null while it is open. */
    private RuntimeException closedBy;
    /** While draining, completions only release memory: nothing is re-armed or resubmitted. */
    private boolean draining;

    /** Opens the first generation of the ring {@code spec} describes; fails with the ring's setup error. */
    public RingIssuer(RingSpec spec, UringSettings settings) {
        this.spec = spec;
        this.maxInFlight = settings.admission().maxInFlight();
        this.maxWaiting = settings.admission().maxWaiting();
        this.buffers = new BufferPool(settings.maxIoSize());
        this.due = settings.waitStrategy() == UringSettings.WaitMode.HYBRID
                ? new DueCompletions(settings.hybrid().window(), slots) : null;
        open(1);
    }

    private void open(int number) {
        generation = RingGeneration.open(number, spec, resources);
        buffers.useFixed(generation.fixed());
    }

    /**
     * Attaches {@code resource} to the generation open now and to every later one; on the ring's thread. A concern
     * attaches its per-ring kernel state once (TCP its provided-buffer ring).
     */
    public void attach(RingResource resource) {
        resources.add(resource);
        if (closedBy == null) {
            resource.attach(generation);
        }
    }

    /** The generation open now; a fault names the generation it came from. */
    public int generation() {
        return generation.number();
    }

    /** Whether requests can still be issued: false once the ring is shut down or stays closed after failures. */
    public boolean isOpen() {
        return closedBy == null;
    }

    /** Whether O_DIRECT files on polled devices can go through an IOPOLL ring here. */
    public boolean hasPolledRing() {
        return generation.hasPolledRing();
    }

    /** Where ring-level failures (a failed io_uring_enter) go: the ring's supervisor. */
    public void onFault(Consumer<Throwable> listener) {
        this.faultListener = listener;
    }

    public int maxIoSize() {
        return buffers.maxIoSize();
    }

    /** The ring's pool of native I/O buffers. */
    public BufferPool buffers() {
        return buffers;
    }

    /**
     * Takes {@code op}: lets it into the kernel now, or queues it (it waits for room, or for the SQ), or refuses it
     * at once: the ring is closed, or it is a request and too many wait already.
     */
    public void issue(RingOp op) {
        if (slots.get(op.userData) == op) { // a reused op must have had its final completion: its slot is the kernel's
            throw new IllegalStateException(op.opcode() + " issued again while in flight");
        }
        if (closedBy != null) {
            op.refuseUnanswered(closedBy);
            return;
        }
        RingOp.Admission admission = op.admission();
        if (admission == RingOp.Admission.EXEMPT) {
            enter(op);
        } else if (waiting.isEmpty() && requestsAdmitted < maxInFlight) {
            requestsAdmitted++;
            enter(op);
        } else if (waiting.size() < maxWaiting || admission == RingOp.Admission.REQUEST_NEVER_REFUSED) {
            waiting.add(op);
        } else {
            op.failUnanswered(new RingOverloadedException(spec.index, requestsAdmitted, waiting.size()));
        }
    }

    /** Lets {@code op} into the kernel: it takes its native memory and a slot, and goes to the SQ or the backlog. */
    private void enter(RingOp op) {
        BufferLease lease;
        try {
            lease = op.acquire(buffers);
        } catch (RuntimeException | OutOfMemoryError e) { // no native memory left: this request fails, not the ring
            op.failUnanswered(e);
            leave(op);
            return;
        }
        op.userData = slots.put(op, lease);
        if (!backlog.isEmpty() || !tryPrepare(op)) {
            backlog.add(op);
        }
    }

    /**
     * Writes the op's SQEs, all of them or none: a chain waits until the SQ has room for the whole of it. An op
     * that cannot be prepared is answered with why at once, and its SQEs become NOPs under its own user_data,
     * linked as its steps were: its slot is given back when the last of them completes, after any step
     * written before it has finished with the op's memory.
     */
    private boolean tryPrepare(RingOp op) {
        Ring target = generation.ringFor(op);
        int steps = op.chainLength();
        if (steps != 1) {
            return tryPrepareChain(op, target, steps);
        }
        Sqe sqe = target.nextSqe();
        if (sqe == null) {
            guarded(target::submit);
            if ((sqe = target.nextSqe()) == null) {
                return false;
            }
        }
        op.stepsInFlight = 1;
        boolean prepared = prepared(op, sqe, 0);
        sqe.userData(op.userData);
        if (prepared && due != null && op.latencyKind() >= 0) {
            due.submitted(op, System.nanoTime()); // submitted with this turn's io_uring_enter
        }
        return true;
    }

    /** {@link #tryPrepare} of a chain: its steps are written once the SQ has room for all of them. */
    private boolean tryPrepareChain(RingOp op, Ring target, int steps) {
        if (steps < 1 || steps > SlotTable.MAX_STEPS || steps > target.sqEntries()) {
            op.failUnanswered(new IllegalArgumentException("a chain of " + steps + " steps: this ring takes 1 to "
                    + Math.min(SlotTable.MAX_STEPS, target.sqEntries())));
            finished(op);
            return true;
        }
        if (target.sqSpaceLeft() < steps) {
            guarded(target::submit);
            if (target.sqSpaceLeft() < steps) {
                return false;
            }
        }
        op.stepsInFlight = steps;
        boolean prepared = true;
        for (int step = 0; step < steps; step++) {
            Sqe sqe = target.nextSqe();
            if (prepared) {
                prepared = prepared(op, sqe, step);
            } else {
                sqe.prepNop(); // after a step that could not be prepared
            }
            sqe.userData(SlotTable.ofStep(op.userData, step));
            if (step < steps - 1) {
                sqe.addFlags(op.link(step)); // the NOPs too: the chain ends where the op expects its end
            }
        }
        if (prepared && due != null && op.latencyKind() >= 0) {
            due.submitted(op, System.nanoTime());
        }
        return true;
    }

    /**
     * Fills step {@code step}'s SQE; false when the op could not prepare it: it is answered with why at once, its
     * later completions are drained, and the SQE, taken already, holds a harmless NOP instead.
     */
    private boolean prepared(RingOp op, Sqe sqe, int step) {
        try {
            op.prepare(sqe, step);
            return true;
        } catch (RuntimeException e) {
            slots.markCompletionFailed(op.userData);
            op.failUnanswered(e);
            sqe.flags(0).prepNop();
            return false;
        }
    }

    /** An op let in is done with the kernel: its slot, its memory and its place in the admission count go back. */
    private void finished(RingOp op) {
        slots.remove(op.userData);
        leave(op);
    }

    /** A request let in has finished: another may take its place. */
    private void leave(RingOp op) {
        if (op.admission() != RingOp.Admission.EXEMPT) {
            requestsAdmitted--;
        }
    }

    /** Lets waiting requests in while there is room, the eventfd read first, then fills the SQ from the backlog. */
    public void fillFromBacklog() {
        if (closedBy != null) {
            return;
        }
        guarded(generation::armWake);
        while (requestsAdmitted < maxInFlight && !waiting.isEmpty()) {
            requestsAdmitted++;
            enter(waiting.poll());
        }
        while (!backlog.isEmpty() && tryPrepare(backlog.peek())) {
            backlog.poll();
        }
    }

    /** Whether something waits for room in the SQ: the loop must not sleep then. */
    public boolean hasBacklog() {
        return !backlog.isEmpty() || (closedBy == null && !generation.wakeArmed());
    }

    /** Ops let in but not yet in the SQ, and requests waiting to be let in. */
    public int backlogSize() {
        return backlog.size() + waiting.size();
    }

    public void submit() {
        guarded(generation::submit);
    }

    /** Waits by the strategy; while polled requests are in flight it only submits: the loop polls for them. */
    public void submitAndWait(WaitStrategy strategy, BooleanSupplier wakeup) {
        if (generation.polledBusy()) {
            submit();
        } else {
            guarded(() -> strategy.submitAndWait(generation.ring(), wakeup, due != null ? due : CompletionForecast.NONE));
        }
    }

    public void reap() {
        guarded(() -> generation.reap(this));
    }

    private void guarded(Runnable ringCall) {
        try {
            ringCall.run();
        } catch (RuntimeException e) {
            faultListener.accept(e);
        }
    }

    @Override
    public void onCompletion(long userData, int res, int flags) {
        if (userData == RingGeneration.WAKE) {
            generation.wakeCompleted();
            return; // armed again at the start of the next turn
        }
        RingOp op = slots.get(userData);
        if (op == null) {
            return; // the drain's own cancel, or a stale user_data
        }
        int step = SlotTable.step(userData);
        boolean ends = CqeFlags.isFinal(flags) && (step == op.stepsInFlight - 1 || cutShort(op, step));
        op.lastOfSubmission = ends;
        if (due != null && ends && !draining && slots.submittedAt(op.userData) >= 0) {
            due.completed(op, System.nanoTime());
        }
        boolean done = true;
        if (draining || slots.completionFailed(op.userData)) {
            op.drained(step, res, flags);
        } else {
            try {
                done = op.complete(step, res, flags, generation.ringFor(op).setupFlags());
            } catch (RuntimeException e) {
                completionFailed(op, res, flags, e);
            }
        }
        if (!ends) {
            return; // more of the op's completions are to come
        }
        if (done) {
            finished(op);
        } else if (!backlog.isEmpty() || !tryPrepare(op)) {
            backlog.add(op); // a short write goes on where it stopped
        }
    }

    /**
     * Whether the completion of {@code step}, not the chain's last, ends it: a step that skips its success posts
     * only when it fails, and unless hard-linked its failure cancels the steps behind it without a completion of
     * theirs (they take on its skip). The ring is told of those it counted.
     */
    private boolean cutShort(RingOp op, int step) {
        int link = op.link(step);
        if ((link & SqeFlags.CQE_SKIP_SUCCESS) == 0 || (link & SqeFlags.IO_HARDLINK) != 0) {
            return false;
        }
        int counted = 1; // the last step posts
        for (int behind = step + 1; behind < op.stepsInFlight - 1; behind++) {
            if ((op.link(behind) & SqeFlags.CQE_SKIP_SUCCESS) == 0) {
                counted++;
            }
        }
        generation.ringFor(op).silencedByFailedLink(counted);
        return true;
    }

    /**
     * A bug in one op's completion must not fail the ring, nor leave its requester waiting: the op is answered with
     * the exception, and ends. What the kernel still posts for it is drained (a multishot op is cancelled, so that
     * its final completion comes), never handled as an answer again.
     */
    private void completionFailed(RingOp op, int res, int flags, RuntimeException e) {
        log.error("completion of {} (res {}) failed", op.opcode(), res, e);
        slots.markCompletionFailed(op.userData);
        try {
            op.failUnanswered(e);
        } catch (RuntimeException again) {
            log.error("answering {} with the failure of its completion failed too", op.opcode(), again);
        }
        if (!CqeFlags.isFinal(flags)) {
            issue(SimpleOp.cancel(op.userData()));
        }
    }

    /** Ops in the kernel or about to be, each with its slot. */
    public long requestsInFlight() {
        return slots.size();
    }

    public RingStats ringStats() {
        return generation.ring().stats();
    }

    /**
     * After a fault: answers every request with {@code cause} at once, drains and closes the generation, and opens
     * the next. Memory of requests still in the kernel after the drain is leaked on purpose, not freed.
     */
    public void restart(RuntimeException cause, Duration drainTimeout) {
        int number = generation.number();
        failAndClose(cause, drainTimeout);
        try {
            open(number + 1);
        } catch (RuntimeException e) { // no new ring (out of memory, locked memory): closed for good
            closedBy = cause;
            buffers.close();
            throw e;
        }
    }

    /**
     * Closes the ring for good: answers what is in flight, and every later request, with {@code cause}, cancels
     * and drains what is in flight, and closes the ring.
     */
    public void close(RuntimeException cause, Duration drainTimeout) {
        if (closedBy == null) {
            closedBy = cause;
            failAndClose(cause, drainTimeout);
            buffers.close(); // only buffers back in the pool: those of undrained requests stay with the kernel
        }
    }

    private void failAndClose(Throwable cause, Duration drainTimeout) {
        for (RingOp op : waiting) { // never let in
            op.refuseUnanswered(cause);
        }
        waiting.clear();
        for (RingOp op : backlog) { // never reached the kernel, or not since its last completion
            op.refuseUnanswered(cause);
            finished(op);
        }
        backlog.clear();
        if (due != null) {
            due.clear();
        }
        for (RingOp op : slots.all()) {
            op.failUnanswered(cause);
        }
        draining = true;
        boolean drained = generation.drainAndClose(this, drainTimeout);
        draining = false;
        buffers.useFixed(null);
        if (!drained) {
            // Their memory may still be written by the kernel: leak it rather than free it.
            log.error("{} requests were still in the kernel after {}; their memory is not freed",
                    slots.size(), drainTimeout);
            slots.abandonAll();
            requestsAdmitted = 0;
        }
    }
}
