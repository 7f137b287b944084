package dev.uringactors.samples;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/** A sample server on two rings and a loopback port, for the length of a test class. */
final class RunningServer implements AutoCloseable {
    final InetSocketAddress address;
    private final ActorTestKit testKit;

    private RunningServer(ActorTestKit testKit, InetSocketAddress address) {
        this.testKit = testKit;
        this.address = address;
    }

    static RunningServer start(BiFunction<InetSocketAddress, CompletableFuture<InetSocketAddress>,
            Behavior<TcpProtocol.Event>> server) throws Exception {
        return start(server, "");
    }

    /** As {@link #start(BiFunction)}, with settings ({@code config}, HOCON) over the defaults. */
    static RunningServer start(BiFunction<InetSocketAddress, CompletableFuture<InetSocketAddress>,
            Behavior<TcpProtocol.Event>> server, String config) throws Exception {
        ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString(config)
                .withFallback(ConfigFactory.parseString("uring.rings = 2")).withFallback(ConfigFactory.load()));
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        testKit.spawn(server.apply(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), bound), "server");
        return new RunningServer(testKit, bound.get(10, TimeUnit.SECONDS));
    }

    /** The settings the server's rings run with. */
    UringSettings settings() {
        return UringSettings.from(testKit.system().settings().config());
    }

    /** The server's actor system. */
    ActorSystem<Void> system() {
        return testKit.system();
    }

    @Override
    public void close() {
        testKit.shutdownTestKit();
    }
}
