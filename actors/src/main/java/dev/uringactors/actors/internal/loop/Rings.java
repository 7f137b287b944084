package dev.uringactors.actors.internal.loop;

import com.typesafe.config.Config;
import dev.uringactors.actors.SqPollStats;
import dev.uringactors.actors.internal.issue.SqPollGroup;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The rings of an actor system, when the io_uring backend runs: starts one loop thread and ring per configured
 * ring, registers a dispatcher per ring, and spawns each ring's supervisor on it; with SQPOLL, one supervisor per
 * SQ thread group. CoordinatedShutdown cancels, drains and closes the rings. The file and TCP actors find their
 * ring's loop here.
 */
public final class Rings {
    private static final String NEAREST_RING_DISPATCHER = "uring-nearest-ring-dispatcher";

    private final UringSettings settings;
    private final String instance;
    private final List<RingLoop> loops = new ArrayList<>();
    private final List<String> executorKeys = new ArrayList<>();
    private final List<String> dispatcherIds = new ArrayList<>();
    private final List<ActorRef<RingSupervisor.Command>> supervisors = new ArrayList<>();
    private final List<ActorRef<SqPollSupervisor.Command>> sqPollSupervisors = new ArrayList<>();
    private final AtomicInteger nextRing = new AtomicInteger();
    private final Scheduler scheduler;
    private CompletableFuture<Done> shutdown;
    private StuckTaskWatchdog watchdog;

    /** Starts the rings of {@code system} with {@code settings}; {@code instance} names them in the JVM. */
    public Rings(ActorSystem<?> system, UringSettings settings, String instance) {
        this.settings = settings;
        this.scheduler = system.scheduler();
        this.instance = instance;
        org.apache.pekko.actor.ActorSystem classic = Adapter.toClassic(system);
        Config defaultDispatcher = classic.settings().config().getConfig("pekko.actor.default-dispatcher");
        List<SqPollGroup> groups = SqPollGroup.of(settings.sqpoll());
        try {
            for (int i = 0; i < settings.rings(); i++) {
                RingLoop loop = new RingLoop(i, settings,
                        groups.isEmpty() ? null : groups.get(settings.sqpoll().groupOf(i))).start();
                loops.add(loop);
                String key = instance + "/" + i;
                String id = "uring-ring-" + i + "-dispatcher";
                RingExecutorConfigurator.register(classic, id, key, loop::execute, settings.dispatcherThroughput(),
                        defaultDispatcher);
                executorKeys.add(key);
                dispatcherIds.add(id);
                RestartBudget budget = new RestartBudget(settings.supervision().maxRestarts(),
                        settings.supervision().within());
                supervisors.add(system.systemActorOf(RingSupervisor.create(loop, settings.shutdownTimeout(), budget),
                        "uring-ring-" + i + "-supervisor", DispatcherSelector.fromConfig(id)));
            }
            String nearestKey = instance + "/nearest";
            RingExecutorConfigurator.register(classic, NEAREST_RING_DISPATCHER, nearestKey,
                    new NearestRingExecutor(loops, classic.dispatcher()), settings.dispatcherThroughput(),
                    defaultDispatcher);
            executorKeys.add(nearestKey);
        } catch (RuntimeException e) {
            shutdown(); // a ring that failed to set up (io_uring disabled?) leaves none behind
            loops.forEach(RingLoop::end);
            throw e;
        }
        for (SqPollGroup group : groups) {
            sqPollSupervisors.add(system.systemActorOf(SqPollSupervisor.create(group,
                    settings.sqpoll().cpuOf(group.index())), "uring-sqpoll-" + group.index(), Props.empty()));
        }
        watchdog = new StuckTaskWatchdog(List.copyOf(loops), settings.stuckTaskWarning());
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
                "uring-close-rings", this::shutdown);
        // The actors still on the rings stop as the system terminates, on their rings' threads; then the threads end.
        system.getWhenTerminated().whenComplete((done, e) -> loops.forEach(RingLoop::end));
    }

    /** The settings the rings were made with. */
    public UringSettings settings() {
        return settings;
    }

    /** Names this set of rings among others in the JVM (e.g. for JMX). */
    public String instance() {
        return instance;
    }

    /** The number of rings. */
    public int count() {
        return settings.rings();
    }

    /** The next ring in turn, to spread work that has no home yet. */
    public int nextRing() {
        return Math.floorMod(nextRing.getAndIncrement(), count());
    }

    /** Ring {@code i}'s loop. */
    public RingLoop loop(int i) {
        return loops.get(i);
    }

    /** Ring {@code i}'s supervisor. */
    ActorRef<RingSupervisor.Command> supervisor(int i) {
        return supervisors.get(i);
    }

    /** The dispatcher (as spawn {@code Props}) that runs actors on ring {@code i}'s thread. */
    public DispatcherSelector dispatcher(int i) {
        return DispatcherSelector.fromConfig(dispatcherId(i));
    }

    /** The id of ring {@code i}'s dispatcher. */
    public String dispatcherId(int i) {
        return dispatcherIds.get(i);
    }

    /**
     * The id of the dispatcher that runs what is submitted on a ring's thread on that ring, and anything else on
     * the default dispatcher ({@link NearestRingExecutor}).
     */
    public String nearestRingDispatcherId() {
        return NEAREST_RING_DISPATCHER;
    }

    /** Each SQPOLL thread's figures over the last second, one per group; none without SQPOLL. */
    public List<CompletableFuture<SqPollStats>> sqPollStats() {
        return sqPollSupervisors.stream()
                .map(s -> AskPattern.<SqPollSupervisor.Command, SqPollStats>ask(s, SqPollSupervisor.GetStats::new,
                        settings.requestTimeout(), scheduler).toCompletableFuture())
                .toList();
    }

    /**
     * Cancels, drains and closes every ring. CoordinatedShutdown calls it; the threads end when the system has
     * terminated.
     */
    public synchronized CompletionStage<Done> shutdown() {
        if (shutdown == null) {
            if (watchdog != null) {
                watchdog.close();
            }
            CompletableFuture<?>[] stops = loops.stream().map(RingLoop::stop).toArray(CompletableFuture[]::new);
            shutdown = CompletableFuture.allOf(stops).thenApply(v -> {
                executorKeys.forEach(RingExecutorConfigurator::unregister);
                return Done.getInstance();
            });
        }
        return shutdown;
    }

    /** Completes once every ring has been closed at shutdown (by {@link #shutdown()}); it closes none. */
    public CompletableFuture<Void> whenClosed() {
        return CompletableFuture.allOf(loops.stream().map(RingLoop::whenClosed).toArray(CompletableFuture[]::new));
    }
}
