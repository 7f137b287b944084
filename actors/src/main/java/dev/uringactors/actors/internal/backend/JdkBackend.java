package dev.uringactors.actors.internal.backend;

import dev.uringactors.actors.BackendChoice;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.SqPollStats;
import dev.uringactors.actors.internal.file.FileService;
import dev.uringactors.actors.internal.file.OpenFiles;
import dev.uringactors.actors.internal.file.jdk.JdkFiles;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.actors.internal.tcp.pekko.PekkoTcpManager;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.stream.ActorMaterializer;
import org.apache.pekko.stream.ActorMaterializerSettings;
import org.apache.pekko.stream.Materializer;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JDK backend: no ring, loop or supervisor. The configured number of rings still spreads work (each ring's
 * dispatcher is the default dispatcher, so code spreading actors over the rings runs unchanged); files are
 * {@link JdkFiles}', TCP is Pekko IO's, and connection stacks run on {@value #STACK_DISPATCHER}.
 */
final class JdkBackend implements IoBackend {
    /** Its threads have the ring threads' stack, deep enough for Pekko HTTP's parser (it recurses per request). */
    static final String STACK_DISPATCHER = "uring.jdk.http-dispatcher";
    private static final String DEFAULT_DISPATCHER = "pekko.actor.default-dispatcher";

    private final ActorSystem<?> system;
    private final BackendChoice choice;
    private final UringSettings settings;
    private final String instance;
    private final AtomicInteger nextRing = new AtomicInteger();
    /** Made on first use: {@link #stackMaterializer()}. */
    private Materializer stackMaterializer;

    JdkBackend(ActorSystem<?> system, BackendChoice choice, UringSettings settings, String instance) {
        this.system = system;
        this.choice = choice;
        this.settings = settings;
        this.instance = instance;
    }

    @Override
    public BackendChoice choice() {
        return choice;
    }

    @Override
    public UringSettings settings() {
        return settings;
    }

    @Override
    public String instance() {
        return instance;
    }

    @Override
    public int count() {
        return settings.rings();
    }

    @Override
    public int nextRing() {
        return Math.floorMod(nextRing.getAndIncrement(), count());
    }

    @Override
    public int runningRings() {
        return 0;
    }

    @Override
    public String dispatcherId(int i) {
        Objects.checkIndex(i, count());
        return DEFAULT_DISPATCHER;
    }

    @Override
    public String nearestRingDispatcherId() {
        return DEFAULT_DISPATCHER;
    }

    @Override
    public int ringOfThisThread() {
        return -1;
    }

    @Override
    public Optional<String> ringDispatcherId(int i) {
        return Optional.empty();
    }

    @Override
    public String stackDispatcherId(int i) {
        return STACK_DISPATCHER;
    }

    @Override
    @SuppressWarnings("deprecation") // a materializer with a dispatcher of its own has no other public constructor
    public synchronized Materializer stackMaterializer() {
        if (stackMaterializer == null) {
            org.apache.pekko.actor.ActorSystem classic = Adapter.toClassic(system);
            // First, as a bad block of it then fails here naming its key; the materializer would time out instead.
            classic.dispatchers().lookup(STACK_DISPATCHER);
            stackMaterializer = ActorMaterializer.create(ActorMaterializerSettings.create(classic)
                    .withDispatcher(STACK_DISPATCHER), classic, "uring-jdk-stack");
        }
        return stackMaterializer;
    }

    @Override
    public CompletionStage<RingLoopStats> stats(int i) {
        return CompletableFuture.failedStage(noRings());
    }

    @Override
    public List<CompletableFuture<SqPollStats>> sqPollStats() {
        return List.of();
    }

    @Override
    public FileService startFiles(OpenFiles openFiles) {
        return JdkFiles.get(system);
    }

    @Override
    public Behavior<ManagerCommand> tcpManager() {
        return PekkoTcpManager.create(settings, this::nextRing);
    }

    @Override
    public Rings rings() {
        throw noRings();
    }

    private IllegalStateException noRings() {
        return new IllegalStateException("no ring runs under the JDK backend (" + choice.reason() + ")");
    }

    @Override
    public CompletionStage<Done> shutdown() {
        return CompletableFuture.completedStage(Done.getInstance());
    }
}
