package dev.uringactors.actors;

import dev.uringactors.actors.internal.backend.IoBackend;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.stream.ActorMaterializer;
import org.apache.pekko.stream.ActorMaterializerSettings;
import org.apache.pekko.stream.Materializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The entry point: {@code UringExtension.get(system)} reads the {@code uring} settings, starts one loop thread
 * and ring per configured ring, and registers a dispatcher per ring. Actors spawned with {@link #dispatcher(int)}
 * run on that ring's thread, so a completion, the actor's reaction and its next request need no thread hop.
 * Files go through {@code UringFiles}, sockets through {@code UringTcp}. CoordinatedShutdown cancels, drains and
 * closes the rings.
 *
 * <p>{@code uring.backend} decides at start whether rings run at all ({@link #backend()}). Under
 * {@link Backend#JDK} the same API works without them: {@link #ringCount()} is the configured count, every
 * {@link #dispatcher(int)} is the default dispatcher, and {@link #stats()} is empty.
 */
public final class UringExtension implements Extension {
    private final IoBackend backend;
    /** The rings' JMX beans with {@code uring.jmx = on}, else null. */
    private final RingMBeans mbeans;
    private final ActorSystem<?> system;
    /** The key of the nearest-ring materializer among the rings' own ({@link #materializer()}). */
    private static final int NEAREST = -1;
    /** Made on first use: {@link #materializer()}, by ring index, and {@link #NEAREST}. */
    private final Map<Integer, Materializer> materializers = new HashMap<>();

    private UringExtension(ActorSystem<?> system) {
        this.system = system;
        this.backend = IoBackends.get(system);
        this.mbeans = backend.settings().jmx()
                ? new RingMBeans(backend.instance(), backend.choice(),
                        new RingStatsSnapshots(this, Duration.ofMillis(100))) : null;
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
                "uring-extension", this::shutdown);
    }

    /** The extension of this actor system, started on first use. */
    public static UringExtension get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system);
    }

    /** The settings the rings were made with. */
    public UringSettings settings() {
        return backend.settings();
    }

    /** The backend that runs: io_uring, or the JDK's I/O where {@code uring.backend} led to it. */
    public Backend backend() {
        return backend.choice().backend();
    }

    /**
     * Why {@link #backend()} runs, naming {@code uring.backend}: "uring.backend = jdk", or under auto the kernel's
     * refusal of io_uring (e.g. "uring.backend = auto: io_uring_setup: EPERM (...)").
     */
    public String backendReason() {
        return backend.choice().reason();
    }

    /** The number of rings (configured; under the JDK backend no ring runs and each is the default dispatcher). */
    public int ringCount() {
        return backend.count();
    }

    /** The next ring in turn, to spread work that has no home yet. */
    public int nextRing() {
        return backend.nextRing();
    }

    /** The dispatcher (as spawn {@code Props}) that runs actors on ring {@code i}'s thread. */
    public DispatcherSelector dispatcher(int i) {
        return DispatcherSelector.fromConfig(backend.dispatcherId(i));
    }

    /** The id of ring {@code i}'s dispatcher, e.g. for a stream: {@code ActorAttributes.dispatcher(id)}. */
    public String dispatcherId(int i) {
        return backend.dispatcherId(i);
    }

    /**
     * A materializer for the streams that work on a ring starts, such as those a request handler runs for each
     * request. Asked for on a ring's thread, it is that ring's own: its streams run on that ring, whichever thread
     * drives them, with no hop to another thread and back. Asked for anywhere else, it is the nearest-ring one:
     * a stream runs where the message that schedules it was sent, on a ring when a ring drives it and on Pekko's
     * default dispatcher otherwise. pekko-grpc's generated Java handlers run a stream per call: give them this
     * one ({@code XHandlerFactory.partial(impl, prefix, materializer, ...)}). What runs on a ring must not block
     * it. Under the JDK backend its streams run on the default dispatcher. Each is made on first use.
     */
    public Materializer materializer() {
        int ring = backend.ringOfThisThread();
        return ring < 0 ? materializer(NEAREST, backend.nearestRingDispatcherId(), "uring-nearest-ring")
                : materializer(ring, backend.dispatcherId(ring), "uring-ring-" + ring);
    }

    /**
     * The materializer in slot {@code slot}, made on first use with {@code dispatcher} as its own. A ring's has
     * its ring's dispatcher, and not the nearest-ring one, because a stream's actor first runs where its
     * materializer's supervisor handles its creation: a supervisor shared by every thread may be running on
     * another ring, or on the default dispatcher (where it starts), when a ring materializes a stream, and 2 in
     * 40 first streams of a new system ran off their ring so.
     */
    @SuppressWarnings("deprecation") // a materializer with a dispatcher of its own has no other public constructor
    private synchronized Materializer materializer(int slot, String dispatcher, String name) {
        Materializer made = materializers.get(slot);
        if (made == null) {
            org.apache.pekko.actor.ActorSystem classic = Adapter.toClassic(system);
            made = ActorMaterializer.create(ActorMaterializerSettings.create(classic).withDispatcher(dispatcher),
                    classic, name);
            materializers.put(slot, made);
        }
        return made;
    }

    /** Every ring's counters, in ring order, each taken on its ring's thread; none under the JDK backend. */
    public CompletionStage<List<RingLoopStats>> stats() {
        List<CompletableFuture<RingLoopStats>> each = new ArrayList<>();
        for (int i = 0; i < runningRings(); i++) {
            each.add(stats(i).toCompletableFuture());
        }
        return all(each);
    }

    /** The rings that run and count: {@link #ringCount()}, or none under the JDK backend. */
    int runningRings() {
        return backend.runningRings();
    }

    /** Ring {@code i}'s counters, taken on its thread; under the JDK backend it fails, there being no ring. */
    public CompletionStage<RingLoopStats> stats(int i) {
        return backend.stats(i);
    }

    /**
     * Each SQPOLL thread's figures over the last second (thread id, CPU share, wake-ups, rings), one per
     * {@code uring.sqpoll.groups}; none without SQPOLL.
     */
    public CompletionStage<List<SqPollStats>> sqPollStats() {
        return all(backend.sqPollStats());
    }

    /** The results of {@code each}, in order, once all have come (or the first failure). */
    private static <T> CompletionStage<List<T>> all(List<CompletableFuture<T>> each) {
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                .thenApply(v -> each.stream().map(CompletableFuture::join).toList());
    }

    /** Cancels, drains and closes every ring and ends its thread. CoordinatedShutdown calls it. */
    public synchronized CompletionStage<Done> shutdown() {
        if (mbeans != null) {
            mbeans.unregister(); // again, harmlessly: it forgets what it unregistered
        }
        return backend.shutdown(); // the same stage each time
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
