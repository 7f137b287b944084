package dev.uringactors.bench;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.samples.EchoServer;
import org.apache.pekko.actor.typed.ActorSystem;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Our echo server (the sample's), on {@code rings} rings; or, with the {@code jdk} backend, the same actors over
 * Pekko IO's TCP, the fallback where io_uring is refused.
 */
final class UringEchoPeer implements EchoPeer {
    private final int rings;
    private final String waitStrategy;
    private final String backend;
    private ActorSystem<?> system;

    UringEchoPeer(int rings, String waitStrategy, String backend) {
        this.rings = rings;
        this.waitStrategy = waitStrategy;
        this.backend = backend;
    }

    @Override
    public String name() {
        return backend.equals("jdk") ? "uring-actors-jdk" : "uring-actors";
    }

    @Override
    public int start() throws Exception {
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        system = ActorSystem.create(EchoServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                bound), "uring-echo", ConfigFactory.parseString("uring { rings = " + rings + ", wait-strategy = "
                + waitStrategy + ", backend = " + backend + " }\npekko.loglevel = WARNING").withFallback(ConfigFactory.load()));
        return bound.get(10, TimeUnit.SECONDS).getPort();
    }

    @Override
    public void stop() throws Exception {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
