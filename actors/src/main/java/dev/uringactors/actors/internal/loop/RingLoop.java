package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.internal.issue.RingIssuer;
import dev.uringactors.actors.internal.issue.RingSpec;
import dev.uringactors.actors.internal.issue.SqPollGroup;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.EventFd;
import dev.uringactors.ring.wait.WaitStrategy;
import org.apache.pekko.dispatch.Mailbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The thread that owns one ring and is the executor of that ring's Pekko dispatcher. Each turn it runs queued
 * tasks (mailboxes of the actors on this ring), submits everything they prepared with one io_uring_enter,
 * waits by the configured strategy when it has nothing else to do, and hands every completion to the issuer.
 *
 * <p>Another thread that hands it a task while it waits wakes it with one eventfd write, and only then: the
 * loop announces that it is parked, and the first producer to clear that flag (CAS) pays the one write. Tasks
 * from the loop's own thread (same-ring tells, mailbox reschedules) go to a local queue with no wake-up.
 *
 * <p>Fairness: every turn first moves the tasks other threads handed over (up to a turn's worth) to the back of
 * the local queue, then runs the queue in order. However busy an actor on the ring keeps it (a mailbox that
 * reschedules itself every time), a timer, an ask or a tell from elsewhere waits at most one turn; tasks from
 * one thread keep their order.
 *
 * <p>Life: {@link #stop()} lets the queued work settle, then closes the ring (its requests are cancelled and
 * answered) but the thread goes on running the tasks of the actors still on it, which the closed issuer answers
 * with refusals, until {@link #end()} (the actor system has terminated). Only then does {@link #execute} refuse,
 * on the caller's thread: no task ever runs ring code on another thread.
 */
public final class RingLoop implements Executor {
    private static final Logger log = LoggerFactory.getLogger(RingLoop.class);
    private static final VarHandle PARKED;
    private static final VarHandle TASKS_STARTED;
    private static final VarHandle RUNNING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PARKED = lookup.findVarHandle(RingLoop.class, "parked", boolean.class);
            TASKS_STARTED = lookup.findVarHandle(RingLoop.class, "tasksStarted", long.class);
            RUNNING = lookup.findVarHandle(RingLoop.class, "running", Runnable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int index;
    private final UringSettings settings;
    /** {@code uring.dispatcher.turn-time}: how long a turn's tasks may run before the loop submits and reaps. */
    private final long turnNanos;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> inbox = new ConcurrentLinkedQueue<>();
    private final ArrayDeque<Runnable> local = new ArrayDeque<>();
    private final BooleanSupplier hasForeignWork = () -> !inbox.isEmpty();
    private final EventFd wakeFd = EventFd.create();
    private final LongAdder wakeSignals = new LongAdder();
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    @SuppressWarnings("unused") // accessed through PARKED
    private volatile boolean parked;
    private volatile boolean stopping;
    /** Set by {@link #end()}: the thread runs what is queued and ends. */
    private volatile boolean ending;
    /** The thread has taken its last task: later tasks are refused. */
    private volatile boolean ended;
    private final BooleanSupplier stopAsked = () -> stopping;
    private final BooleanSupplier endAsked = () -> ending;
    private RingIssuer issuer;
    private WaitStrategy waitStrategy;
    private long turns;
    private long tasksRun;
    /**
     * For the stuck-task watchdog, written with opaque stores (plain stores on x86): tasks started so far, and the
     * one running now (null between tasks). A count that stands still under a running task means it is stuck.
     */
    @SuppressWarnings("unused") // accessed through TASKS_STARTED
    private long tasksStarted;
    @SuppressWarnings("unused") // accessed through RUNNING
    private Runnable running;
    private final AtomicLong stuckTasks = new AtomicLong();
    /** Per-ring state of the concerns that use the ring (TCP's), by type; used only on the loop thread. */
    private final Map<Class<?>, Object> attachments = new HashMap<>();
    /** Who hears of restarts and of the end: a concurrent set, as actors stopped after the loop leave off it. */
    private final Set<Consumer<RingEvent>> subscribers = ConcurrentHashMap.newKeySet();

    /** Ring {@code index}'s loop; with SQPOLL, its ring opens into {@code group} (else null). */
    public RingLoop(int index, UringSettings settings, SqPollGroup group) {
        this.index = index;
        this.settings = settings;
        this.turnNanos = settings.turnTime().toNanos();
        // A stack of its own size: Pekko HTTP's parser, run here, recurses once per pipelined request in a read.
        this.thread = new Thread(null, () -> run(group), "uring-ring-" + index, settings.threadStackSize());
        thread.setDaemon(true);
    }

    /** Starts the thread, which sets up its ring; fails with the ring's setup error. */
    RingLoop start() {
        thread.start();
        try {
            started.join();
        } catch (java.util.concurrent.CompletionException e) {
            wakeFd.close();
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
        return this;
    }

    @Override
    public void execute(Runnable task) {
        if (Thread.currentThread() == thread) {
            local.add(task);
            return;
        }
        if (ended) {
            throw refusal();
        }
        inbox.offer(task);
        if (ended && inbox.remove(task)) {
            // The loop ended between the check above and the offer, and its last look at the inbox missed it.
            throw refusal();
        }
        if ((boolean) PARKED.getVolatile(this) && PARKED.compareAndSet(this, true, false)) {
            wakeSignals.increment();
            wakeFd.signal();
            LockSupport.unpark(thread); // parked without a ring (closed, or failed too often)
        }
    }

    private RejectedExecutionException refusal() {
        return new RejectedExecutionException("ring " + index + " is shut down: its loop has ended");
    }

    private void run(SqPollGroup group) {
        try {
            issuer = new RingIssuer(new RingSpec(index, group, settings, wakeFd), settings);
            waitStrategy = settings.newWaitStrategy();
        } catch (RuntimeException | Error e) {
            started.completeExceptionally(e);
            return;
        }
        started.complete(null);
        try {
            while (!stopping) {
                turn(true);
            }
            // One shutdown-timeout for both: the queued work may take half of it, the drain has what is left.
            long closing = System.nanoTime();
            settle(settings.shutdownTimeout().dividedBy(2));
            Duration left = settings.shutdownTimeout().minusNanos(System.nanoTime() - closing);
            closeRing(left.isNegative() ? Duration.ZERO : left); // negative after a task stuck that long
            while (!ending) {
                runWithoutRing();
            }
        } catch (Throwable fatal) {
            log.error("ring loop {} died", index, fatal);
            closeRing(settings.shutdownTimeout());
        } finally {
            ended = true;
            runTasks(Integer.MAX_VALUE, Long.MAX_VALUE); // what arrived before the producers could see the end
            wakeFd.close();
        }
    }

    /**
     * Answers what is in flight and every later request with the shutdown, waiting up to {@code drainTimeout} for
     * the kernel's last completions, and tells the subscribers.
     */
    private void closeRing(Duration drainTimeout) {
        if (issuer.isOpen()) {
            IllegalStateException shutDown = new IllegalStateException("ring " + index + " is shut down");
            issuer.close(shutDown, drainTimeout);
            publish(new RingEvent.Closed(index, shutDown));
        }
        stopped.complete(null);
    }

    /**
     * Stop was asked: before the ring closes, the work its actors have queued runs, and so does the work that
     * queues in turn, and what it prepares is submitted; the loop does not wait for completions. A response whose
     * write was still a task in the queue (a turn ends after turn-time with tasks left) is written, not refused by
     * the closed ring. For at most {@code limit}: an actor that never rests holds the close up that long.
     */
    private void settle(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (hasWork()) {
            if (System.nanoTime() - deadline >= 0) {
                log.warn("ring {} still had tasks queued after {} (half of uring.shutdown-timeout): it closes, and "
                        + "refuses what they ask of it", index, limit);
                return;
            }
            turn(false);
        }
    }

    /** Tasks queued, or requests waiting for room in the SQ. */
    private boolean hasWork() {
        return !local.isEmpty() || !inbox.isEmpty() || (issuer.isOpen() && issuer.hasBacklog());
    }

    /** Runs a turn; without {@code mayWait} it submits and reaps what is there, however idle. */
    private void turn(boolean mayWait) {
        turns++;
        int ran = runTasks(settings.tasksPerTurn(), turnNanos);
        if (!issuer.isOpen()) { // failed for good: park, but not past stop(), which must close the ring
            parkIfIdle(ran, stopAsked);
            return;
        }
        issuer.fillFromBacklog();
        if (!mayWait || ran == settings.tasksPerTurn() || hasWork()) {
            issuer.submit(); // more to do: no waiting
        } else {
            PARKED.setVolatile(this, true);
            if (inbox.isEmpty()) {
                issuer.submitAndWait(waitStrategy, hasForeignWork);
            }
            PARKED.setVolatile(this, false);
        }
        issuer.reap();
    }

    /** After the ring closed at shutdown: the actors still on the loop run until the system has terminated. */
    private void runWithoutRing() {
        turns++;
        parkIfIdle(runTasks(settings.tasksPerTurn(), turnNanos), endAsked);
    }

    /**
     * The ring is closed (shut down, or it failed more often than uring.supervision allows): there is nothing to
     * submit or reap, only tasks to run, which answer with refusals. Park until one arrives, or until {@code wake}
     * says the loop has something else to do, instead of turning.
     */
    private void parkIfIdle(int ran, BooleanSupplier wake) {
        if (ran == 0 && local.isEmpty()) {
            PARKED.setVolatile(this, true);
            if (inbox.isEmpty() && !wake.getAsBoolean()) {
                LockSupport.park(this);
            }
            PARKED.setVolatile(this, false);
        }
    }

    /**
     * Runs up to {@code max} tasks in arrival order, for no longer than {@code nanos} (checked after each task),
     * after moving what other threads handed over to the back of the local queue: the ring's own busy actors
     * cannot keep foreign tasks waiting for more than a turn, nor a turn last much longer than {@code nanos}.
     */
    private int runTasks(int max, long nanos) {
        Runnable foreign;
        for (int moved = 0; moved < max && (foreign = inbox.poll()) != null; moved++) {
            local.add(foreign);
        }
        long start = System.nanoTime();
        int ran = 0;
        while (ran < max && (ran == 0 || System.nanoTime() - start < nanos)) {
            Runnable task = local.poll();
            if (task == null) {
                break;
            }
            ran++;
            TASKS_STARTED.setOpaque(this, tasksRun + ran);
            RUNNING.setOpaque(this, task);
            try {
                task.run();
            } catch (Throwable t) {
                // Fatal errors escape Pekko's Mailbox.run; the ring thread must survive them.
                log.error("task on ring {} failed", index, t);
                stopActorOf(task);
            }
            RUNNING.setOpaque(this, (Runnable) null);
        }
        tasksRun += ran;
        return ran;
    }

    /**
     * An error that escaped an actor's mailbox run (fatal to Pekko: a StackOverflowError in a stream stage, say)
     * left the actor half-way through a message, and Pekko's supervision never saw it: the actor is stopped, so that
     * those who watch it hear of its end now (a connection watches its stream's stage actor, and closes).
     */
    private static void stopActorOf(Runnable task) {
        if (task instanceof Mailbox mailbox && mailbox.actor() != null) {
            mailbox.actor().stop();
        }
    }

    /** For the watchdog, from any thread: how many tasks have started so far. */
    long tasksStarted() {
        return (long) TASKS_STARTED.getOpaque(this);
    }

    /** For the watchdog, from any thread: the task running now, or null. */
    Runnable runningTask() {
        return (Runnable) RUNNING.getOpaque(this);
    }

    /** The loop thread, whose stack the watchdog logs. */
    Thread thread() {
        return thread;
    }

    /** The watchdog found a task that ran too long. */
    void countStuckTask() {
        stuckTasks.incrementAndGet();
    }

    /** Tasks the watchdog found running too long; from any thread. */
    public long stuckTasks() {
        return stuckTasks.get();
    }

    /**
     * Tells {@code subscriber}, on this loop's thread, when the ring is opened anew after a fault and when it
     * closes for good. Subscribe on the loop's thread: no event can then fall between what the subscriber saw of
     * the ring and its subscription.
     */
    public void subscribe(Consumer<RingEvent> subscriber) {
        subscribers.add(subscriber);
    }

    /** {@code subscriber} hears no more; harmless if it never subscribed. */
    public void unsubscribe(Consumer<RingEvent> subscriber) {
        subscribers.remove(subscriber);
    }

    /** Tells every subscriber of {@code event}; on the loop thread. */
    void publish(RingEvent event) {
        subscribers.forEach(s -> s.accept(event));
    }

    /** The settings the ring was made with. */
    public UringSettings settings() {
        return settings;
    }

    /** The issuer; use it only on this loop's thread. */
    public RingIssuer issuer() {
        return issuer;
    }

    /**
     * The state a concern keeps with this ring (TCP's counters and receive buffers), made by {@code create} on
     * first use; only on this loop's thread. The loop holds it without knowing what it is.
     */
    public <T> T attachment(Class<T> type, Function<RingLoop, T> create) {
        Object found = attachments.get(type);
        if (found == null) {
            found = create.apply(this);
            attachments.put(type, found);
        }
        return type.cast(found);
    }

    /** The attachment of {@code type}, or null if none was made yet; only on this loop's thread. */
    public <T> T attachmentOrNull(Class<T> type) {
        return type.cast(attachments.get(type));
    }

    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    public int index() {
        return index;
    }

    /** The wait strategy of the ring open now; read it on the loop thread. */
    public WaitStrategy waitStrategy() {
        return waitStrategy;
    }

    /** Writes other threads made to the eventfd to wake the loop; from any thread. */
    public long wakeSignals() {
        return wakeSignals.sum();
    }

    /** Loop turns so far; read it on the loop thread. */
    public long turns() {
        return turns;
    }

    /** Tasks (actor mailbox runs) run so far; read it on the loop thread. */
    public long tasksRun() {
        return tasksRun;
    }

    /**
     * {@code figures} of this loop, taken on its thread: completed there, or failed once the loop has ended or
     * {@code timeout} has passed (a task stuck on the thread).
     */
    public <T> CompletableFuture<T> onThread(Function<RingLoop, T> figures, Duration timeout) {
        CompletableFuture<T> taken = new CompletableFuture<>();
        try {
            execute(() -> {
                try {
                    taken.complete(figures.apply(this));
                } catch (RuntimeException e) {
                    taken.completeExceptionally(e);
                }
            });
        } catch (RuntimeException ended) {
            taken.completeExceptionally(ended);
        }
        return taken.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Runs what is queued ({@link #settle()}), then cancels, drains and closes the ring; completes when it has.
     * The thread goes on running the tasks of the actors still on it until {@link #end()}.
     */
    CompletableFuture<Void> stop() {
        if (!stopping) {
            stopping = true;
            wakeUp();
        }
        return stopped;
    }

    /** Completes once the ring has been closed at shutdown ({@link #stop()}); it closes nothing. */
    CompletableFuture<Void> whenClosed() {
        return stopped;
    }

    /** Ends the thread once the ring is closed (the actor system has terminated): later tasks are refused. */
    void end() {
        stop();
        ending = true;
        wakeUp();
    }

    private void wakeUp() {
        if (!inLoop()) {
            wakeFd.signal();
            LockSupport.unpark(thread);
        }
    }
}
