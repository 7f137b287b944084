package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.CompletionHandler;
import dev.uringactors.ring.IoWqWorkers;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.UserData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * One generation of a ring: the ring (and its IOPOLL companion), its place in an SQPOLL group, what is registered
 * with it (buffers, the file table, the resources of TCP and files) and the READ of the loop's eventfd that lets
 * another thread end a wait in the kernel. Opened once, drained once, closed once; after a fault the issuer opens
 * the next generation. Used only on the ring's thread.
 */
public final class RingGeneration {
    private static final Logger log = LoggerFactory.getLogger(RingGeneration.class);
    /** user_data of the eventfd read (above any slot's: generations stay below 2^30). */
    static final long WAKE = UserData.MAX;
    private static final CompletionHandler NOTHING_IN_FLIGHT = (userData, res, flags) -> { };

    private final int number;
    private final RingSpec spec;
    private final Ring ring;
    /** The IOPOLL companion, or null. */
    private final Ring polledRing;
    /** The registered buffers, or null. */
    private final FixedBuffers fixed;
    /** Where the eventfd read writes: taken last, once nothing else of the generation can fail. */
    private final NativeBuffer wakeBuffer;
    private final List<RingResource> resources;
    /** The eventfd read is in the SQ or in flight. */
    private boolean wakeArmed;

    private RingGeneration(int number, RingSpec spec, Ring ring, Ring polledRing, List<RingResource> resources) {
        this.number = number;
        this.spec = spec;
        this.ring = ring;
        this.polledRing = polledRing;
        this.resources = resources;
        this.fixed = registerFixed();
        resources.forEach(r -> r.attach(this));
        this.wakeBuffer = NativeBuffer.allocate(8);
        armWake();
    }

    /** Opens generation {@code number} of the ring {@code spec} describes, with {@code resources} attached. */
    static RingGeneration open(int number, RingSpec spec, List<RingResource> resources) {
        Ring ring = openRing(spec, spec.options);
        Ring polled = null;
        try {
            if (spec.polledOptions != null) {
                polled = openRing(spec, spec.polledOptions);
            }
            return new RingGeneration(number, spec, ring, polled, resources);
        } catch (RuntimeException e) { // just opened: nothing in flight to drain
            closeRing(spec, ring, NOTHING_IN_FLIGHT, 0);
            if (polled != null) {
                closeRing(spec, polled, NOTHING_IN_FLIGHT, 0);
            }
            throw e;
        }
    }

    /**
     * A ring of this index, in its SQPOLL group if it has one (attached to a member open now), with its io-wq
     * capped: a kernel worker runs each SPLICE and each request that cannot be polled, and one that waits on a
     * peer is a thread for as long as it waits. The cap is the io-wq of the thread that registers it (with SQPOLL,
     * of the SQ thread), so it is registered here, on the ring's thread, for every ring and every restart.
     */
    private static Ring openRing(RingSpec spec, RingOptions options) {
        Ring ring = spec.group == null ? Ring.open(options) : spec.group.open(spec.index, options);
        IoWqWorkers cap = spec.ioWqMaxWorkers;
        if (cap.bounded() != 0 || cap.unbounded() != 0) { // 0 and 0: the kernel's defaults, nothing to change
            spec.registerOrNull("io-wq worker cap (uring.io-wq.max-workers)", "the kernel's defaults stay", () ->
                    ring.registerIoWqMaxWorkers(cap.bounded(), cap.unbounded()));
        }
        return ring;
    }

    /** The new ring's registered buffers, or null: none configured, or refused by the kernel (said once). */
    private FixedBuffers registerFixed() {
        return spec.fixedBuffers.count() == 0 ? null : registerOrNull("registered buffers (uring.buffers.fixed)",
                "file reads and writes use plain buffers",
                () -> FixedBuffers.register(ring, spec.fixedBuffers.count(), spec.fixedBuffers.size()));
    }

    /**
     * Registers something with this generation's ring; where the kernel refuses (locked memory, an old kernel),
     * says so once per kind for the ring's whole life, with what happens instead, and gives null.
     */
    public <T> T registerOrNull(String what, String instead, Supplier<T> register) {
        return spec.registerOrNull(what, instead, register);
    }

    /** Which generation this is: 1 for the first, one more after each restart. */
    public int number() {
        return number;
    }

    /** The ring itself, for a resource to register with. */
    public Ring ring() {
        return ring;
    }

    /** The ring an op goes to: the IOPOLL companion for a polled file's reads and writes. */
    Ring ringFor(RingOp op) {
        return op.polled() ? polledRing : ring;
    }

    boolean hasPolledRing() {
        return polledRing != null;
    }

    /** Polled requests are in flight: they complete only when polled for, so the loop must not sleep. */
    boolean polledBusy() {
        return polledRing != null && polledRing.inFlight() > 0;
    }

    FixedBuffers fixed() {
        return fixed;
    }

    /**
     * Puts the eventfd read in the SQ. When the SQ stays full even after a submit (an SQPOLL thread behind, or a
     * kernel short of memory), it waits, and the loop does not sleep until it is armed ({@link #wakeArmed()}).
     */
    void armWake() {
        if (wakeArmed) {
            return;
        }
        Sqe sqe = ring.nextSqe();
        if (sqe == null) { // a full SQ: submit what is in it to make room
            ring.submit();
            sqe = ring.nextSqe();
        }
        if (sqe != null) {
            sqe.prepRead(spec.wakeFd.fd(), wakeBuffer.address(), 8, 0).userData(WAKE);
            wakeArmed = true;
        }
    }

    /** The eventfd read completed: another thread woke the loop. */
    void wakeCompleted() {
        wakeArmed = false;
    }

    boolean wakeArmed() {
        return wakeArmed;
    }

    /** Submits the polled ring first: a file's CLOSE on the plain ring must not run before its READ is submitted. */
    void submit() {
        if (polledRing != null) {
            polledRing.submit();
        }
        ring.submit();
    }

    /** Hands what completed to {@code handler}, the polled ring's too while it has requests in flight. */
    void reap(CompletionHandler handler) {
        ring.reap(handler);
        if (polledBusy() && polledRing.pollCompletions() > 0) {
            polledRing.reap(handler);
        }
    }

    /**
     * Cancels what is in flight, hands the completions to {@code handler} until nothing is left or {@code timeout}
     * passes, and closes the rings. What was registered is freed where the kernel is done with it; memory of
     * requests still in the kernel is leaked on purpose. Returns whether everything drained.
     */
    boolean drainAndClose(CompletionHandler handler, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean drained = closeRing(spec, ring, handler, timeout.toNanos())
                & (polledRing == null
                || closeRing(spec, polledRing, handler, Math.max(0, deadline - System.nanoTime())));
        if (fixed != null) { // free now what came back; the rest as it comes back, or never if it stays in the kernel
            fixed.close();
        }
        if (drained) {
            wakeBuffer.close();
        }
        for (RingResource resource : resources) {
            resource.detach(drained);
        }
        return drained;
    }

    /**
     * Drains {@code r} into {@code handler} for up to {@code timeoutNanos} and closes it, leaving its SQPOLL group
     * first so that nothing attaches to it as it goes; whether nothing was left in flight.
     */
    private static boolean closeRing(RingSpec spec, Ring r, CompletionHandler handler, long timeoutNanos) {
        if (spec.group != null) {
            spec.group.leave(r);
        }
        try {
            return r.close(handler, timeoutNanos);
        } catch (RuntimeException e) {
            log.warn("ring {}: closing a ring failed", spec.index, e);
            return false;
        }
    }
}
