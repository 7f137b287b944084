package dev.uringactors.actors.internal.issue;

import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.BufferRing;
import dev.uringactors.ring.CompletionHandler;
import dev.uringactors.ring.CqeFlags;
import dev.uringactors.ring.EventFd;
import dev.uringactors.ring.IoWqWorkers;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.RingStats;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.UringException;
import dev.uringactors.ring.UserData;
import dev.uringactors.ring.wait.CompletionForecast;
import dev.uringactors.ring.wait.WaitStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The only submitter of one ring, living on its loop thread: turns {@link RingOp}s into SQEs, keeps them in a
 * {@link SlotTable} until their final completion, queues them when the SQ is full, and keeps a READ of the
 * loop's eventfd in flight so that another thread's wake-up ends a wait in the kernel.
 *
 * <p>With {@code uring.iopoll} on, it also owns an IOPOLL companion ring for O_DIRECT files on devices with
 * poll queues. Such a ring completes only what it polls for, and cannot carry the eventfd read, so the loop
 * polls it (and does not sleep) while it has requests in flight.
 */
public final class RingIssuer implements CompletionHandler {
    private static final Logger log = LoggerFactory.getLogger(RingIssuer.class);
    /** user_data of the eventfd read (above any slot's: generations stay below 2^30). */
    private static final long WAKE = UserData.MAX;
    /** user_data of an SQE whose op could not be prepared (turned into a NOP). */
    private static final long DISCARDED = UserData.MAX - 1;
    private static final int RECV_GROUP = 0;

    private final int index;
    /** The SQPOLL group the rings open into, or null. */
    private final SqPollGroup group;
    private final RingOptions options;
    private final RingOptions polledOptions;
    private final EventFd wakeFd;
    private final int maxIoSize;
    private final int recvBufferCount;
    private final int recvBufferSize;
    private final BufferPool buffers;
    private final UringSettings.FixedBuffers fixedSettings;
    private final int registeredFileSlots;
    private final IoWqCap ioWqCap;
    /** The current ring has a registered file table for UringOpenOption.REGISTERED. */
    private boolean fileTable;
    /** The kinds of registration the kernel refused, each said once. */
    private final Set<String> refusalsLogged = new HashSet<>();
    /** The current ring's registered buffers, or null. */
    private FixedBuffers fixed;
    private SlotTable slots = new SlotTable();
    private final ArrayDeque<RingOp> backlog = new ArrayDeque<>();
    private Ring ring;
    private Ring polledRing;
    /** Provided buffers for multishot recv, registered on first use; group {@link #RECV_GROUP}. */
    private BufferRing recvBuffers;
    private NativeBuffer wakeBuffer;
    private int generation;
    private Consumer<Throwable> faultListener = e -> log.error("ring fault with no supervisor to report to", e);
    /** Why the ring is closed for good (the answer to every later request), or null while it is open. */
    private RuntimeException closedBy;
    /** The eventfd read is in the SQ or in flight: another thread's wake-up can end a wait in the kernel. */
    private boolean wakeArmed;
    /** While draining, completions only release memory: nothing is re-armed or resubmitted. */
    private boolean draining;

    /** File requests in flight and their completion times, for a polling wait strategy; null when none polls. */
    private final DueCompletions due;

    /**
     * {@code polledOptions} sets up the IOPOLL companion ring, or is null for none; {@code forecastWindow} > 0
     * times file requests for a polling wait strategy, with that many samples per estimate; {@code ioWqMaxWorkers}
     * caps the io-wq workers behind each ring opened.
     */
    public RingIssuer(int index, SqPollGroup group, RingOptions options, RingOptions polledOptions, EventFd wakeFd,
                      int maxIoSize, UringSettings.FixedBuffers fixedSettings, int registeredFileSlots,
                      int recvBufferCount, int recvBufferSize, int forecastWindow, IoWqWorkers ioWqMaxWorkers) {
        this.index = index;
        this.ioWqCap = new IoWqCap(index, ioWqMaxWorkers);
        this.registeredFileSlots = registeredFileSlots;
        this.fixedSettings = fixedSettings;
        this.group = group;
        this.due = forecastWindow > 0 ? new DueCompletions(forecastWindow) : null;
        this.options = options;
        this.polledOptions = polledOptions;
        this.wakeFd = wakeFd;
        this.maxIoSize = maxIoSize;
        this.recvBufferCount = recvBufferCount;
        this.recvBufferSize = recvBufferSize;
        this.buffers = new BufferPool(maxIoSize);
        open();
    }

    private void open() {
        generation++;
        ring = openRing(options);
        if (polledOptions != null) {
            try {
                polledRing = openRing(polledOptions);
            } catch (RuntimeException e) {
                closeRing(ring);
                throw e;
            }
        }
        fixed = registerFixed();
        buffers.useFixed(fixed);
        fileTable = registerFileTable();
        wakeBuffer = NativeBuffer.allocate(8);
        wakeArmed = false;
        armWake();
    }

    /** An empty registered file table on the new ring; false: none configured, or refused (said once). */
    private boolean registerFileTable() {
        if (registeredFileSlots == 0) {
            return false;
        }
        int[] empty = new int[registeredFileSlots];
        Arrays.fill(empty, -1);
        return registerOrNull("registered file table (uring.files.registered-slots)",
                "files opened REGISTERED are opened as usual", () -> {
                    ring.registerFiles(empty);
                    return Boolean.TRUE;
                }) != null;
    }

    /** Whether files can be opened into the ring's registered table (UringOpenOption.REGISTERED). */
    public boolean hasFileTable() {
        return fileTable;
    }

    /** The new ring's registered buffers, or null: none configured, or refused by the kernel (said once). */
    private FixedBuffers registerFixed() {
        return fixedSettings.count() == 0 ? null : registerOrNull("registered buffers (uring.buffers.fixed)",
                "file reads and writes use plain buffers",
                () -> FixedBuffers.register(ring, fixedSettings.count(), fixedSettings.size()));
    }

    /**
     * Registers something with the new ring; where the kernel refuses (locked memory, an old kernel), says so
     * once per kind, with what happens instead, and gives null.
     */
    private <T> T registerOrNull(String what, String instead, Supplier<T> register) {
        try {
            return register.get();
        } catch (UringException e) {
            if (refusalsLogged.add(what)) {
                log.warn("ring {}: {} refused: {}; {}", index, what, e.getMessage(), instead);
            }
            return null;
        }
    }

    /** A ring of this index, in its SQPOLL group if it has one (attached to a member open now), its io-wq capped. */
    private Ring openRing(RingOptions o) {
        Ring opened = group == null ? Ring.open(o) : group.open(index, o);
        ioWqCap.apply(opened);
        return opened;
    }

    /** Closes a ring, leaving its SQPOLL group first so that nothing attaches to it as it goes. */
    private void closeRing(Ring r) {
        if (group != null) {
            group.leave(r);
        }
        r.close();
    }

    public int ringFd() {
        return ring.fd();
    }

    /** The ring fd this ring attached its SQPOLL thread to when it opened, or -1 (it created the thread). */
    public int attachedTo() {
        return ring.options().attachWqFd();
    }

    /** Which ring this is: 1 for the first, one more after each restart. A fault names the ring it came from. */
    public int generation() {
        return generation;
    }

    /** Whether requests can still be issued: false once the ring is shut down or stays closed after failures. */
    public boolean isOpen() {
        return closedBy == null;
    }

    /** Whether O_DIRECT files on polled devices can go through an IOPOLL ring here. */
    public boolean hasPolledRing() {
        return polledRing != null;
    }

    private Ring ringOf(RingOp op) {
        return op.polled() ? polledRing : ring;
    }

    private boolean polledBusy() {
        return polledRing != null && polledRing.inFlight() > 0;
    }

    /**
     * Puts the eventfd read in the SQ. When the SQ stays full even after a submit (an SQPOLL thread behind, or a
     * kernel short of memory), the read waits like a backlogged op and the loop does not sleep until it is armed.
     */
    private void armWake() {
        Sqe sqe = ring.nextSqe();
        if (sqe == null) { // a full SQ: submit what is in it to make room
            guarded(ring::submit);
            sqe = ring.nextSqe();
        }
        if (sqe != null) {
            sqe.prepRead(wakeFd.fd(), wakeBuffer.address(), 8, 0).userData(WAKE);
            wakeArmed = true;
        }
    }

    /** Where ring-level failures (a failed io_uring_enter) go: the ring's supervisor. */
    public void onFault(Consumer<Throwable> listener) {
        this.faultListener = listener;
    }

    public int maxIoSize() {
        return maxIoSize;
    }

    /** The ring's provided buffers for multishot recv, shared by its connections. */
    public BufferRing recvBuffers() {
        if (recvBuffers == null) {
            recvBuffers = BufferRing.register(ring, RECV_GROUP, recvBufferCount, recvBufferSize);
        }
        return recvBuffers;
    }

    /** The ring's pool of native I/O buffers. */
    public BufferPool buffers() {
        return buffers;
    }

    /** Submits the op now, or after earlier ones when the SQ is full; answers at once if the ring is closed. */
    public void issue(RingOp op) {
        if (closedBy != null) {
            op.refuse(closedBy);
            op.release(); // it never reached the kernel
            return;
        }
        op.userData = slots.put(op);
        if (!backlog.isEmpty() || !tryPrepare(op)) {
            backlog.add(op);
        }
    }

    private boolean tryPrepare(RingOp op) {
        Ring target = ringOf(op);
        Sqe sqe = target.nextSqe();
        if (sqe == null) {
            guarded(target::submit);
            if ((sqe = target.nextSqe()) == null) {
                return false;
            }
        }
        try {
            op.prepare(sqe);
            sqe.userData(op.userData());
            if (due != null && op.latencyKind() >= 0) {
                due.submitted(op, System.nanoTime()); // submitted with this turn's io_uring_enter
            }
        } catch (RuntimeException e) {
            sqe.prepNop().userData(DISCARDED); // the SQE is taken: it must hold something harmless
            slots.remove(op.userData());
            op.fail(e);
            op.release();
        }
        return true;
    }

    /** Moves queued ops into the SQ while it has room, the eventfd read first. */
    public void fillFromBacklog() {
        if (!wakeArmed && closedBy == null) {
            armWake();
        }
        while (!backlog.isEmpty() && tryPrepare(backlog.peek())) {
            backlog.poll();
        }
    }

    /** Whether something waits for room in the SQ: the loop must not sleep then. */
    public boolean hasBacklog() {
        return !backlog.isEmpty() || (!wakeArmed && closedBy == null);
    }

    public int backlogSize() {
        return backlog.size();
    }

    public void submit() {
        guarded(() -> {
            // The polled ring first: a file's CLOSE on the plain ring must not run before its READ is submitted.
            if (polledRing != null) {
                polledRing.submit();
            }
            ring.submit();
        });
    }

    /** Waits by the strategy; while polled requests are in flight it only submits: the loop polls for them. */
    public void submitAndWait(WaitStrategy strategy, BooleanSupplier wakeup) {
        if (polledBusy()) {
            submit();
        } else {
            guarded(() -> strategy.submitAndWait(ring, wakeup, due != null ? due : CompletionForecast.NONE));
        }
    }

    public void reap() {
        guarded(() -> {
            ring.reap(this);
            if (polledBusy() && polledRing.pollCompletions() > 0) {
                polledRing.reap(this);
            }
        });
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
        if (userData == WAKE) {
            wakeArmed = false;
            if (!draining) {
                armWake();
            }
            return;
        }
        RingOp op = slots.get(userData);
        if (op == null) {
            return; // DISCARDED, the drain's own cancel, or a stale user_data
        }
        if (op.submittedAt >= 0 && CqeFlags.isFinal(flags) && !draining) {
            due.completed(op, System.nanoTime());
        }
        boolean done = true;
        try {
            if (draining) {
                op.drained(res);
            } else {
                done = op.complete(res, flags, ringOf(op).setupFlags());
            }
        } catch (RuntimeException e) {
            // A bug in one op's completion must not fail the ring and everything else in flight.
            log.error("completion of {} (res {}) failed", op.opcode(), res, e);
        }
        if (done) {
            if (CqeFlags.isFinal(flags)) {
                slots.remove(userData);
                op.release();
            }
        } else if (!backlog.isEmpty() || !tryPrepare(op)) {
            backlog.add(op); // a short write goes on where it stopped
        }
    }

    public long requestsInFlight() {
        return slots.size();
    }

    public RingStats ringStats() {
        return ring.stats();
    }

    /**
     * After a fault: answers every request with {@code cause} at once, drains and closes the ring, and opens a
     * fresh one. Memory of requests still in the kernel after the drain is leaked on purpose, not freed.
     */
    public void restart(RuntimeException cause, Duration drainTimeout) {
        failAndClose(cause, drainTimeout);
        try {
            open();
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
        for (RingOp op : backlog) { // never reached the kernel, or not since its last completion
            slots.remove(op.userData());
            op.refuse(cause);
            op.release();
        }
        backlog.clear();
        if (due != null) {
            due.clear();
        }
        for (RingOp op : slots.all()) {
            op.fail(cause);
        }
        draining = true;
        boolean drained = drainAndClose(ring, drainTimeout);
        if (polledRing != null) {
            drained &= drainAndClose(polledRing, drainTimeout);
        }
        draining = false;
        if (fixed != null) { // free now what came back; the rest as it comes back, or never if it stays in the kernel
            fixed.close();
            fixed = null;
            buffers.useFixed(null);
        }
        if (drained) {
            wakeBuffer.close();
            if (recvBuffers != null) {
                recvBuffers.close();
            }
        } else {
            // Their memory may still be written by the kernel: leak it rather than free it.
            log.error("{} requests were still in the kernel after {}; their memory is not freed",
                    slots.size(), drainTimeout);
            slots = new SlotTable();
        }
        recvBuffers = null; // a new ring registers its own
    }

    private boolean drainAndClose(Ring r, Duration timeout) {
        boolean drained;
        try {
            drained = r.drain(this, timeout.toNanos());
        } catch (RuntimeException e) {
            drained = false;
            log.warn("draining ring failed", e);
        }
        try {
            closeRing(r);
        } catch (RuntimeException e) {
            log.warn("closing ring: {}", e.getMessage());
        }
        return drained;
    }
}
