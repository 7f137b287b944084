package dev.uringactors.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.RingProtocol.Command;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.dispatch.DispatcherConfigurator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The entry point: {@code UringExtension.get(system)} reads the {@code uring} settings, starts one loop thread
 * and ring per configured ring, registers a dispatcher per ring, and spawns each ring's actor on it. Actors
 * spawned with {@link #dispatcher(int)} run on that ring's thread, so a completion, the actor's reaction and its
 * next request need no thread hop. CoordinatedShutdown cancels, drains and closes the rings.
 */
public final class UringExtension implements Extension {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final UringSettings settings;
    private final List<RingLoop> loops = new ArrayList<>();
    private final List<String> loopKeys = new ArrayList<>();
    private final List<String> dispatcherIds = new ArrayList<>();
    private final List<ActorRef<Command>> rings = new ArrayList<>();
    private final List<ActorRef<RingSupervisor.Command>> supervisors = new ArrayList<>();
    private final List<ActorRef<SqPollSupervisor.Command>> sqPollSupervisors = new ArrayList<>();
    private final AtomicInteger nextRing = new AtomicInteger();
    private final Scheduler scheduler;
    private CompletableFuture<Done> shutdown;
    private StuckTaskWatchdog watchdog;
    /** The rings' JMX beans with {@code uring.jmx = on}, else null. */
    private RingMBeans mbeans;

    private UringExtension(ActorSystem<?> system) {
        this.settings = UringSettings.from(system.settings().config());
        this.scheduler = system.scheduler();
        org.apache.pekko.actor.ActorSystem classic = Adapter.toClassic(system);
        Config defaultDispatcher = classic.settings().config().getConfig("pekko.actor.default-dispatcher");
        String instance = system.name() + "-" + INSTANCES.incrementAndGet();
        List<SqPollGroup> groups = SqPollGroup.of(settings.sqpoll());
        OpenFiles openFiles = new OpenFiles();
        try {
            for (int i = 0; i < settings.rings(); i++) {
                RingLoop loop = new RingLoop(i, settings,
                        groups.isEmpty() ? null : groups.get(settings.sqpoll().groupOf(i)), openFiles).start();
                loops.add(loop);
                String key = instance + "/" + i;
                String id = "uring-ring-" + i + "-dispatcher";
                RingLoopExecutorConfigurator.register(key, loop);
                loopKeys.add(key);
                Config config = ConfigFactory.parseMap(Map.of(
                        "id", id,
                        "type", "Dispatcher",
                        "executor", RingLoopExecutorConfigurator.class.getName(),
                        "throughput", settings.dispatcherThroughput(),
                        RingLoopExecutorConfigurator.LOOP_KEY, key)).withFallback(defaultDispatcher);
                classic.dispatchers().registerConfigurator(id,
                        new DispatcherConfigurator(config, classic.dispatchers().prerequisites()));
                dispatcherIds.add(id);
                supervisors.add(system.systemActorOf(RingSupervisor.create(loop, settings.shutdownTimeout(),
                                new RestartBudget(settings.supervision().maxRestarts(), settings.supervision().within())),
                        "uring-ring-" + i + "-supervisor", DispatcherSelector.fromConfig(id)));
                rings.add(system.systemActorOf(FileActor.create(loop), "uring-ring-" + i,
                        DispatcherSelector.fromConfig(id)));
            }
        } catch (RuntimeException e) {
            shutdown(); // a ring that failed to set up (io_uring disabled?) leaves none behind
            throw e;
        }
        for (SqPollGroup group : groups) {
            sqPollSupervisors.add(system.systemActorOf(SqPollSupervisor.create(group,
                            settings.sqpoll().cpuOf(group.index())), "uring-sqpoll-" + group.index(),
                    org.apache.pekko.actor.typed.Props.empty()));
        }
        watchdog = new StuckTaskWatchdog(List.copyOf(loops), settings.stuckTaskWarning());
        mbeans = settings.jmx() ? new RingMBeans(instance, new RingStatsSnapshots(this, Duration.ofMillis(100)))
                : null;
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
                "uring-close-rings", this::shutdown);
    }

    /** The extension of this actor system, started on first use. */
    public static UringExtension get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system);
    }

    /** The settings the rings were made with. */
    public UringSettings settings() {
        return settings;
    }

    /** The number of rings. */
    public int ringCount() {
        return rings.size();
    }

    /** The actor of ring {@code i}: send it {@link RingProtocol} requests. */
    public ActorRef<Command> ring(int i) {
        return rings.get(i);
    }

    /** The next ring in turn, to spread work that has no home yet. */
    public int nextRing() {
        return Math.floorMod(nextRing.getAndIncrement(), rings.size());
    }

    RingLoop loop(int i) {
        return loops.get(i);
    }

    /** Ring {@code i}'s supervisor; tests fail the ring through it. */
    ActorRef<RingSupervisor.Command> supervisor(int i) {
        return supervisors.get(i);
    }

    /** The dispatcher (as spawn {@code Props}) that runs actors on ring {@code i}'s thread. */
    public DispatcherSelector dispatcher(int i) {
        return DispatcherSelector.fromConfig(dispatcherIds.get(i));
    }

    /** The id of ring {@code i}'s dispatcher, e.g. for a stream: {@code ActorAttributes.dispatcher(id)}. */
    public String dispatcherId(int i) {
        return dispatcherIds.get(i);
    }

    /** Every ring's counters, in ring order, each taken on its ring's thread. */
    public CompletionStage<List<RingLoopStats>> stats() {
        List<CompletableFuture<RingLoopStats>> each = new ArrayList<>();
        for (int i = 0; i < rings.size(); i++) {
            each.add(stats(i).toCompletableFuture());
        }
        return all(each);
    }

    /** The results of {@code each}, in order, once all have come (or the first failure). */
    private static <T> CompletionStage<List<T>> all(List<CompletableFuture<T>> each) {
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                .thenApply(v -> each.stream().map(CompletableFuture::join).toList());
    }

    /**
     * Each SQPOLL thread's figures over the last second (thread id, CPU share, wake-ups, rings), one per
     * {@code uring.sqpoll.groups}; none without SQPOLL.
     */
    public CompletionStage<List<SqPollStats>> sqPollStats() {
        return all(sqPollSupervisors.stream()
                .map(s -> AskPattern.<SqPollSupervisor.Command, SqPollStats>ask(s, SqPollSupervisor.GetStats::new,
                        settings.requestTimeout(), scheduler).toCompletableFuture())
                .toList());
    }

    /** Ring {@code i}'s counters, taken on its thread. */
    public CompletionStage<RingLoopStats> stats(int i) {
        return AskPattern.ask(supervisors.get(i), RingSupervisor.GetStats::new, settings.requestTimeout(), scheduler);
    }

    /** Cancels, drains and closes every ring and ends its thread. CoordinatedShutdown calls it. */
    public synchronized CompletionStage<Done> shutdown() {
        if (shutdown == null) {
            if (watchdog != null) {
                watchdog.close();
            }
            if (mbeans != null) {
                mbeans.unregister();
            }
            CompletableFuture<?>[] stops = loops.stream().map(RingLoop::stop).toArray(CompletableFuture[]::new);
            shutdown = CompletableFuture.allOf(stops).thenApply(v -> {
                loopKeys.forEach(RingLoopExecutorConfigurator::unregister);
                return Done.getInstance();
            });
        }
        return shutdown;
    }

    /**
     * The extension's id, for Pekko's registry. To start the rings with the actor system rather than on first
     * use: {@code pekko.actor.typed.extensions = ["dev.uringactors.actors.UringExtension$Id"]}.
     */
    public static final class Id extends ExtensionId<UringExtension> {
        private static final Id INSTANCE = new Id();

        private Id() {
        }

        /** What Pekko looks up to load the extension from {@code pekko.actor.typed.extensions}. */
        public static Id getInstance() {
            return INSTANCE;
        }

        @Override
        public UringExtension createExtension(ActorSystem<?> system) {
            return new UringExtension(system);
        }
    }
}
