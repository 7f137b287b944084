package dev.uringactors.actors.internal.backend;

import dev.uringactors.actors.BackendChoice;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.SqPollStats;
import dev.uringactors.actors.internal.file.FileService;
import dev.uringactors.actors.internal.file.OpenFiles;
import dev.uringactors.actors.internal.file.RingFileService;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.actors.internal.tcp.RingTcpManager;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.SystemMaterializer;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The io_uring backend: the {@link Rings}, their file actors and TCP manager; connections live on rings. */
final class RingBackend implements IoBackend {
    private final ActorSystem<?> system;
    private final BackendChoice choice;
    private final Rings rings;

    RingBackend(ActorSystem<?> system, BackendChoice choice, Rings rings) {
        this.system = system;
        this.choice = choice;
        this.rings = rings;
    }

    @Override
    public BackendChoice choice() {
        return choice;
    }

    @Override
    public UringSettings settings() {
        return rings.settings();
    }

    @Override
    public String instance() {
        return rings.instance();
    }

    @Override
    public int count() {
        return rings.count();
    }

    @Override
    public int nextRing() {
        return rings.nextRing();
    }

    @Override
    public int runningRings() {
        return rings.count();
    }

    @Override
    public String dispatcherId(int i) {
        return rings.dispatcherId(i);
    }

    @Override
    public String nearestRingDispatcherId() {
        return rings.nearestRingDispatcherId();
    }

    @Override
    public int ringOfThisThread() {
        for (int i = 0; i < rings.count(); i++) {
            if (rings.loop(i).inLoop()) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public Optional<String> ringDispatcherId(int i) {
        return Optional.of(rings.dispatcherId(i));
    }

    @Override
    public String stackDispatcherId(int i) {
        return rings.dispatcherId(i);
    }

    @Override
    public Materializer stackMaterializer() {
        return SystemMaterializer.get(system).materializer();
    }

    @Override
    public CompletionStage<RingLoopStats> stats(int i) {
        return rings.loop(i).onThread(RingFigures::of, rings.settings().requestTimeout());
    }

    @Override
    public List<CompletableFuture<SqPollStats>> sqPollStats() {
        return rings.sqPollStats();
    }

    @Override
    public FileService startFiles(OpenFiles openFiles) {
        return new RingFileService(system, rings, openFiles);
    }

    @Override
    public Behavior<ManagerCommand> tcpManager() {
        return RingTcpManager.create(rings);
    }

    @Override
    public Rings rings() {
        return rings;
    }

    @Override
    public CompletionStage<Done> shutdown() {
        return rings.shutdown();
    }
}
