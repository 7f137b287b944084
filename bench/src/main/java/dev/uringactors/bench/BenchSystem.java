package dev.uringactors.bench;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** An actor system configured for a run, and the measuring helpers the commands share. */
final class BenchSystem implements AutoCloseable {
    final ActorSystem<Void> system;
    final UringExtension uring;
    final UringFiles files;

    /** {@code uringSettings} is HOCON inside {@code uring { }}; one ring unless it says otherwise. */
    BenchSystem(String uringSettings) {
        system = ActorSystem.create(Behaviors.empty(), "bench", ConfigFactory.parseString(
                "uring { rings = 1\n" + uringSettings + " }\npekko.loglevel = WARNING")
                .withFallback(ConfigFactory.load()));
        uring = UringExtension.get(system);
        files = UringFiles.get(system);
    }

    <T> void spawnOnRing(int ring, Behavior<T> behavior, String name) {
        system.systemActorOf(behavior, name + "-" + ring, uring.dispatcher(ring));
    }

    <T> void spawnOnRing(Behavior<T> behavior, String name) {
        spawnOnRing(0, behavior, name);
    }

    RingLoopStats stats() throws Exception {
        return uring.stats(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Rate of {@code counter} over {@code seconds}, after {@code warmupSeconds}. */
    static double rate(LongSupplier counter, int warmupSeconds, int seconds) throws InterruptedException {
        return Throughput.measure(counter, warmupSeconds, seconds).perSecond();
    }

    @Override
    public void close() {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
    }
}
