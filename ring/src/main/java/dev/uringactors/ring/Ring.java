package dev.uringactors.ring;

import java.util.BitSet;
import java.util.Set;

/**
 * One io_uring instance: its SQ and CQ mapped into this process, submission, waiting and reaping. Not thread
 * safe: one thread (the issuer) uses it. That is what SINGLE_ISSUER promises the kernel, and what lets the ring
 * fd be registered with that thread.
 *
 * <p>Ownership: memory and fds that a request points at belong to the kernel until the request's final
 * completion. {@link #close()} cancels what is in flight and waits for it before it unmaps the ring.
 */
public final class Ring implements AutoCloseable {
    private static final int PARAMS_SIZE = 120;
    private static final long OFF_SQ_RING = 0;
    private static final long OFF_CQ_RING = 0x8000000L;
    private static final long OFF_SQES = 0x10000000L;
    /** io_uring_getevents_arg (24 bytes), then the __kernel_timespec it points at. */
    private static final int WAIT_ARG_SIZE = 24;
    /** user_data of the cancel-everything request that {@link #drain} submits; its handler sees it too. */
    public static final long DRAIN_CANCEL_USER_DATA = 0x3ffc_105e_0000_0000L;
    private static final CompletionHandler DISCARD = (userData, res, flags) -> { };

    private final int fd;
    private final int setupFlags;
    private final int features;
    private final RingOptions options;
    private final RingMemory sqRing;
    private final RingMemory cqRing;
    private final RingMemory sqes;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final NativeBuffer waitArg;
    private final boolean sqpoll;
    /** Completions can be held back in the kernel until we enter it (deferred task work, IOPOLL polling). */
    private final boolean completionsNeedEnter;

    private int registeredIndex = -1;
    private Thread registrant;
    private boolean closed;

    private long enters;
    /** Written by the issuer thread only; volatile so that an observer can read it without asking that thread. */
    private volatile long sqWakeups;
    private long submitted;
    private long completions;
    private long overflowFlushes;
    private long droppedAtClose;
    /** Requests the kernel cancelled without a completion: linked behind a failed CQE_SKIP_SUCCESS request. */
    private long silenced;

    private Ring(int fd, NativeBuffer params, RingOptions options) {
        this.fd = fd;
        this.options = options;
        this.setupFlags = params.getInt(8);
        this.features = params.getInt(20);
        int sqEntries = params.getInt(0);
        int cqEntries = params.getInt(4);
        long sqRingSize = params.getInt(64) + 4L * sqEntries;
        long cqRingSize = params.getInt(100) + 16L * cqEntries;
        boolean singleMmap = (features & Feature.SINGLE_MMAP.bit) != 0;
        if (singleMmap) {
            sqRingSize = cqRingSize = Math.max(sqRingSize, cqRingSize);
        }
        RingMemory sqMem = null;
        RingMemory cqMem = null;
        try {
            sqMem = RingMemory.map(fd, sqRingSize, OFF_SQ_RING);
            cqMem = singleMmap ? sqMem : RingMemory.map(fd, cqRingSize, OFF_CQ_RING);
            this.sqes = RingMemory.map(fd, 64L * sqEntries, OFF_SQES);
        } catch (RuntimeException e) {
            if (cqMem != null && cqMem != sqMem) {
                cqMem.unmap();
            }
            if (sqMem != null) {
                sqMem.unmap();
            }
            throw e;
        }
        this.sqRing = sqMem;
        this.cqRing = cqMem;
        this.sq = new SubmissionQueue(sqRing, sqes, params, false, has(SetupFlag.NO_SQARRAY));
        this.cq = new CompletionQueue(cqRing, params);
        this.sqpoll = has(SetupFlag.SQPOLL);
        boolean deferred = has(SetupFlag.DEFER_TASKRUN) && !has(SetupFlag.TASKRUN_FLAG);
        this.completionsNeedEnter = deferred || (has(SetupFlag.IOPOLL) && !sqpoll);
        this.waitArg = NativeBuffer.allocate(WAIT_ARG_SIZE + 16);
        waitArg.putInt(8, 8); // sigmask_sz = _NSIG / 8; the sigmask itself stays NULL
        waitArg.putLong(16, waitArg.address() + WAIT_ARG_SIZE);
        if (!has(SetupFlag.R_DISABLED) && options.registerRingFd()) {
            registerRingFd();
        }
    }

    /**
     * Sets up a ring. Fails with a {@link UringException} whose hint names the usual cause: io_uring disabled
     * (EPERM, ENOSYS), the memlock limit (ENOMEM), or a flag combination this kernel rejects (EINVAL).
     */
    public static Ring open(RingOptions options) {
        int mask = options.setupMask();
        try (NativeBuffer params = NativeBuffer.allocate(PARAMS_SIZE)) {
            params.putInt(4, options.cqEntries());
            params.putInt(8, mask);
            params.putInt(12, Math.max(options.sqThreadCpu(), 0));
            params.putInt(16, (int) options.sqThreadIdle().toMillis());
            params.putInt(24, Math.max(options.attachWqFd(), 0));
            int fd = IoUringCalls.setup(options.entries(), params.address());
            if (fd < 0) {
                throw new UringException("io_uring_setup", -fd, ErrorHints.forSetup(-fd, mask));
            }
            try {
                return new Ring(fd, params, options);
            } catch (RuntimeException | Error e) {
                LibC.close(fd);
                throw e;
            }
        }
    }

    /** A ring with {@code entries} entries and these flags; everything else as {@link RingOptions#defaults()}. */
    public static Ring open(int entries, SetupFlag... flags) {
        return open(RingOptions.defaults().withEntries(entries).withFlags(flags));
    }

    /**
     * Enables a ring set up with R_DISABLED. Call it on the thread that will own the ring: with SINGLE_ISSUER
     * that thread becomes the issuer, and the ring fd is registered with it.
     */
    public void enable() {
        checkOpen();
        int r = IoUringCalls.register(fd, IoUringCalls.REGISTER_ENABLE_RINGS, 0, 0);
        if (r < 0) {
            throw new UringException("io_uring_register(ENABLE_RINGS)", -r, ErrorHints.forRegister(-r));
        }
        if (options.registerRingFd()) {
            registerRingFd();
        }
    }

    /**
     * The next free SQE, or null when the SQ is full (submit, then try again). Every SQE taken is submitted by the
     * next {@link #submit()}, so prepare it at once.
     */
    public Sqe nextSqe() {
        return sq.next();
    }

    /** Submits every prepared SQE: at most one io_uring_enter (none with an awake SQPOLL thread). */
    public int submit() {
        return submit(0, 0, 0);
    }

    /**
     * Submits, then waits until at least {@code minComplete} completions are in the CQ. Returns the number of
     * SQEs submitted; an interrupted wait (EINTR) returns early, and a CQ that is backed up (EBUSY) or a kernel
     * short of memory (EAGAIN) returns 0: reap, then call again.
     */
    public int submitAndWait(int minComplete) {
        return submit(minComplete, 0, 0);
    }

    /** As {@link #submitAndWait(int)}, but waits at most {@code timeoutNanos} (needs EXT_ARG, kernel 5.11). */
    public int submitAndWait(int minComplete, long timeoutNanos) {
        if ((features & Feature.EXT_ARG.bit) == 0) {
            throw new UnsupportedOperationException("waiting with a timeout needs IORING_FEAT_EXT_ARG (5.11)");
        }
        waitArg.putLong(WAIT_ARG_SIZE, timeoutNanos / 1_000_000_000L);
        waitArg.putLong(WAIT_ARG_SIZE + 8, timeoutNanos % 1_000_000_000L);
        return submit(minComplete, IoUringCalls.ENTER_EXT_ARG, waitArg.address());
    }

    private int submit(int minComplete, int extraFlags, long arg) {
        checkOpen();
        int toSubmit = sq.flush();
        int flags = extraFlags;
        boolean enter = false;
        if (toSubmit > 0) {
            if (!sqpoll) {
                enter = true;
            } else if (sq.needsWakeupAfterFence()) {
                flags |= IoUringCalls.ENTER_SQ_WAKEUP;
                enter = true;
                sqWakeups++;
            }
        }
        if (minComplete > 0 || (sq.flags() & (SubmissionQueue.CQ_OVERFLOW | SubmissionQueue.TASKRUN)) != 0) {
            flags |= IoUringCalls.ENTER_GETEVENTS;
            enter = true;
        }
        if (!enter) {
            return sqpoll ? toSubmit : 0;
        }
        int r = enter(toSubmit, minComplete, flags, arg, arg == 0 ? 0 : WAIT_ARG_SIZE);
        if (r < 0) {
            return enterFailed(-r, flags);
        }
        int done = sqpoll ? toSubmit : r;
        submitted += done;
        return done;
    }

    private int enter(int toSubmit, int minComplete, int flags, long arg, long argSize) {
        int ringFd = fd;
        if (registrant == Thread.currentThread()) {
            ringFd = registeredIndex;
            flags |= IoUringCalls.ENTER_REGISTERED_RING;
        }
        enters++;
        return IoUringCalls.enter(ringFd, toSubmit, minComplete, flags, arg, argSize);
    }

    private int enterFailed(int errno, int flags) {
        switch (errno) {
            case Errno.EINTR, Errno.ETIME, Errno.EAGAIN, Errno.EBUSY:
                return 0;
            default:
                throw new UringException("io_uring_enter", errno, ErrorHints.forEnter(errno, setupFlags));
        }
    }

    /**
     * Completions ready to reap, without blocking. Where the kernel holds completions back until the owner enters
     * it (DEFER_TASKRUN without TASKRUN_FLAG, IOPOLL without SQPOLL, a pending overflow or task-work flag), this
     * enters with GETEVENTS and min_complete 0 first. With SQPOLL + IOPOLL the SQ thread polls: no enter.
     */
    public int pollCompletions() {
        checkOpen();
        int ready = cq.ready();
        if (ready == 0 && (completionsNeedEnter
                || (sq.flags() & (SubmissionQueue.CQ_OVERFLOW | SubmissionQueue.TASKRUN)) != 0)) {
            int r = enter(0, 0, IoUringCalls.ENTER_GETEVENTS, 0, 0);
            if (r < 0) {
                enterFailed(-r, 0);
            }
            ready = cq.ready();
        }
        return ready;
    }

    /** CQEs in the CQ now, as user space sees it (no system call). */
    public int cqReady() {
        checkOpen();
        return cq.ready();
    }

    /** Hands every CQE in the CQ to the handler; returns how many. Allocates nothing. */
    public int reap(CompletionHandler handler) {
        return reap(handler, Integer.MAX_VALUE);
    }

    /**
     * Hands up to {@code max} CQEs to the handler. When the CQ is empty but the kernel kept overflowed CQEs
     * (IORING_SQ_CQ_OVERFLOW), it flushes them into the CQ first, so that none is lost.
     */
    public int reap(CompletionHandler handler, int max) {
        checkOpen();
        int n = cq.reap(handler, max);
        if (n < max && (sq.flags() & SubmissionQueue.CQ_OVERFLOW) != 0) {
            overflowFlushes++;
            int r = enter(0, 0, IoUringCalls.ENTER_GETEVENTS, 0, 0);
            if (r < 0) {
                enterFailed(-r, 0);
            }
            n += cq.reap(handler, max - n);
        }
        completions += n;
        return n;
    }

    /** Registers buffers for READ_FIXED / WRITE_FIXED; buffer {@code i} gets index {@code i}. */
    public void registerBuffers(NativeBuffer... buffers) {
        try (NativeBuffer iovecs = NativeBuffer.allocate(16L * Math.max(1, buffers.length))) {
            for (int i = 0; i < buffers.length; i++) {
                iovecs.putLong(16L * i, buffers[i].address());
                iovecs.putLong(16L * i + 8, buffers[i].size());
            }
            register("REGISTER_BUFFERS", IoUringCalls.REGISTER_BUFFERS, iovecs.address(), buffers.length);
        }
    }

    /** Unregisters the buffers of {@link #registerBuffers}; only once no request uses them. */
    public void unregisterBuffers() {
        register("UNREGISTER_BUFFERS", IoUringCalls.UNREGISTER_BUFFERS, 0, 0);
    }

    /** Registers a file table for FIXED_FILE requests; -1 leaves a slot empty for later updates. */
    public void registerFiles(int... fds) {
        try (NativeBuffer table = intArray(fds)) {
            register("REGISTER_FILES", IoUringCalls.REGISTER_FILES, table.address(), fds.length);
        }
    }

    /** Replaces slots {@code offset..} of the registered file table; -1 empties a slot. Returns slots updated. */
    public int updateFiles(int offset, int... fds) {
        try (NativeBuffer table = intArray(fds); NativeBuffer update = NativeBuffer.allocate(16)) {
            update.putInt(0, offset);
            update.putLong(8, table.address());
            return register("REGISTER_FILES_UPDATE", IoUringCalls.REGISTER_FILES_UPDATE, update.address(),
                    fds.length);
        }
    }

    /** Unregisters the file table of {@link #registerFiles}; only once no request uses it. */
    public void unregisterFiles() {
        register("UNREGISTER_FILES", IoUringCalls.UNREGISTER_FILES, 0, 0);
    }

    /** The opcodes this kernel supports (IORING_REGISTER_PROBE), by {@link Opcode#code()}. */
    public BitSet probeOps() {
        int maxOps = 256;
        try (NativeBuffer probe = NativeBuffer.allocate(16 + 8L * maxOps)) {
            register("REGISTER_PROBE", IoUringCalls.REGISTER_PROBE, probe.address(), maxOps);
            BitSet ops = new BitSet();
            int len = probe.getInt(0) >>> 8 & 0xff;
            for (int i = 0; i < len; i++) {
                long entry = probe.getLong(16 + 8L * i);
                if ((entry >>> 16 & 0xffff & 1) != 0) { // IO_URING_OP_SUPPORTED
                    ops.set((int) (entry & 0xff));
                }
            }
            return ops;
        }
    }

    /**
     * Caps the kernel's worker threads (io-wq) that run what this ring cannot complete inline
     * (IORING_REGISTER_IOWQ_MAX_WORKERS, 5.15): {@code bounded} for work that ends in bounded time (regular files,
     * block devices), {@code unbounded} for work that may wait on something outside without end (every SPLICE, a
     * request on a file that cannot be polled). 0 leaves that value as it is. The io-wq belongs to the submitting
     * thread (with SQPOLL, to the SQ thread) and serves every ring that thread uses: call it on that thread, as
     * SINGLE_ISSUER requires anyway. The kernel also applies it to the other threads that submitted to this ring,
     * and to a thread that first uses io_uring through this ring later; not to one that already has an io-wq.
     * Returns the values in force before, or zeros when the calling thread had no io-wq yet.
     */
    public IoWqWorkers registerIoWqMaxWorkers(int bounded, int unbounded) {
        if (bounded < 0 || unbounded < 0) {
            throw new IllegalArgumentException("io-wq worker caps must not be negative: bounded " + bounded
                    + ", unbounded " + unbounded);
        }
        try (NativeBuffer counts = intArray(new int[] {bounded, unbounded})) {
            register("REGISTER_IOWQ_MAX_WORKERS", IoUringCalls.REGISTER_IOWQ_MAX_WORKERS, counts.address(), 2);
            return new IoWqWorkers(counts.getInt(0), counts.getInt(4));
        }
    }

    /** For {@link BufferRing}: register or unregister a provided-buffer ring. */
    int registerBufferRing(boolean register, long reg) {
        return register(register ? "REGISTER_PBUF_RING" : "UNREGISTER_PBUF_RING",
                register ? IoUringCalls.REGISTER_PBUF_RING : IoUringCalls.UNREGISTER_PBUF_RING, reg, 1);
    }

    private int register(String what, int opcode, long arg, int nrArgs) {
        checkOpen();
        int r = IoUringCalls.register(fd, opcode, arg, nrArgs);
        if (r < 0) {
            throw new UringException("io_uring_register(" + what + ")", -r, ErrorHints.forRegister(-r));
        }
        return r;
    }

    private static NativeBuffer intArray(int[] values) {
        NativeBuffer b = NativeBuffer.allocate(4L * Math.max(1, values.length));
        for (int i = 0; i < values.length; i++) {
            b.putInt(4L * i, values[i]);
        }
        return b;
    }

    private void registerRingFd() {
        try (NativeBuffer update = NativeBuffer.allocate(16)) {
            update.putInt(0, -1); // any free slot
            update.putLong(8, fd);
            // Registration is per thread and limited (16 per thread); without it enter just takes the plain fd.
            if (IoUringCalls.register(fd, IoUringCalls.REGISTER_RING_FDS, update.address(), 1) == 1) {
                registeredIndex = update.getInt(0);
                registrant = Thread.currentThread();
            }
        }
    }

    private void unregisterRingFd() {
        if (registrant != Thread.currentThread()) {
            return; // another thread's table: the kernel drops the entry when that thread exits
        }
        try (NativeBuffer update = NativeBuffer.allocate(16)) {
            update.putInt(0, registeredIndex);
            IoUringCalls.register(fd, IoUringCalls.UNREGISTER_RING_FDS, update.address(), 1);
        }
        registrant = null;
    }

    /**
     * Requests that have not posted their final completion: SQEs taken minus final CQEs reaped. Requests marked
     * CQE_SKIP_SUCCESS are not counted, nor is the CQE such a request posts when it fails, nor a message another
     * ring sent to this one (MSG_RING): none of them ends a counted request.
     */
    public long inFlight() {
        return sq.taken - sq.skipSuccess - cq.finals - silenced;
    }

    /**
     * Counts {@code requests} as ended that will post nothing: those linked (IO_LINK) behind a CQE_SKIP_SUCCESS
     * request that failed. The kernel cancels them, and they take on the skip of the request that failed; only
     * the submitter, which knows the chain, can say how many of them were counted.
     */
    public void silencedByFailedLink(int requests) {
        silenced += requests;
    }

    /**
     * Cancels everything in flight and reaps until it has all completed or the timeout passes. Returns true when
     * nothing is left in flight: only then may memory the requests pointed at be freed. Completions reaped
     * here go to {@code handler}.
     */
    public boolean drain(CompletionHandler handler, long timeoutNanos) {
        if (inFlight() <= 0) {
            return true;
        }
        Sqe cancel = nextSqe();
        if (cancel == null) {
            submit();
            cancel = nextSqe();
        }
        if (cancel != null) {
            cancel.prepCancel(0, OpFlags.ASYNC_CANCEL_ANY | OpFlags.ASYNC_CANCEL_ALL).userData(DRAIN_CANCEL_USER_DATA);
        }
        long deadline = System.nanoTime() + timeoutNanos;
        long left;
        while (inFlight() > 0 && (left = deadline - System.nanoTime()) > 0) {
            submitAndWait(1, left);
            reap(handler);
        }
        return inFlight() <= 0;
    }

    /**
     * Cancels and drains what is in flight (up to the options' close timeout), then unmaps the ring and closes
     * its fd. Close on the issuer thread: another thread cannot submit the cancellations to a SINGLE_ISSUER
     * ring, nor release the fd registered with the issuer. Throws {@link IllegalStateException}, after
     * releasing the ring, when requests were still in flight: the memory they point at must not be freed.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!close(DISCARD, options.closeTimeout().toNanos())) {
            throw new IllegalStateException(inFlight() + " requests were still in flight when the ring closed; the "
                    + "kernel cancels them, but memory they point at must not be freed until it has");
        }
    }

    /**
     * Drains once, handing what completes to {@code handler}, then unmaps the ring and closes its fd, whatever the
     * drain left. Returns whether nothing was left in flight: only then may the memory the requests pointed at be
     * freed. Close on the issuer thread, as {@link #close()}.
     */
    public boolean close(CompletionHandler handler, long drainTimeoutNanos) {
        if (closed) {
            return inFlight() <= 0;
        }
        boolean drained = false;
        try {
            drained = drain(handler, drainTimeoutNanos);
        } catch (UringException e) {
            // e.g. EEXIST: not the issuer; the kernel cancels them when the fd is closed
        } finally {
            unregisterRingFd();
            droppedAtClose = cq.dropped();
            closed = true;
            sqes.unmap();
            if (cqRing != sqRing) {
                cqRing.unmap();
            }
            sqRing.unmap();
            LibC.close(fd);
            waitArg.close();
        }
        return drained;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("ring is closed");
        }
    }

    /** Whether the ring was set up with this flag. */
    public boolean has(SetupFlag flag) {
        return SetupFlag.in(flag, setupFlags);
    }

    /** Whether the kernel reported this feature at setup. */
    public boolean has(Feature feature) {
        return (features & feature.bit) != 0;
    }

    /** The ring fd (for MSG_RING, ATTACH_WQ). */
    public int fd() {
        return fd;
    }

    /** The options the ring was opened with. */
    public RingOptions options() {
        return options;
    }

    /** The setup flags in effect, as {@code IORING_SETUP_*} bits. */
    public int setupFlags() {
        return setupFlags;
    }

    /** The features the kernel reported at setup. */
    public Set<Feature> features() {
        return Feature.of(features);
    }

    /** The submission queue's size, in entries. */
    public int sqEntries() {
        return sq.entries;
    }

    /** The completion queue's size, in entries. */
    public int cqEntries() {
        return cq.entries;
    }

    /** Free SQE slots. */
    public int sqSpaceLeft() {
        checkOpen();
        return sq.spaceLeft();
    }

    /** Whether the ring fd is registered with the calling thread (cheaper enters). */
    public boolean ringFdRegistered() {
        return registrant == Thread.currentThread();
    }

    /**
     * io_uring_enter calls made only to wake a sleeping SQPOLL thread; unlike {@link #stats()}, safe to read from
     * any thread (a watcher need not wake the issuer to learn it).
     */
    public long sqWakeups() {
        return sqWakeups;
    }

    /** Counters kept by the issuer thread; read them there. Still valid after close. */
    public RingStats stats() {
        return new RingStats(enters, submitted, completions, overflowFlushes, closed ? droppedAtClose : cq.dropped(),
                sqWakeups);
    }
}
