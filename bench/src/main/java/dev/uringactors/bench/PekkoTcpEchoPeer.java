package dev.uringactors.bench;

import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;
import com.typesafe.config.ConfigFactory;

import java.util.concurrent.TimeUnit;

/** Pekko Streams' own {@code Tcp} echo server (Pekko IO on NIO selectors). */
final class PekkoTcpEchoPeer implements EchoPeer {
    private ActorSystem<Void> system;
    private Tcp.ServerBinding binding;

    @Override
    public String name() {
        return "pekko-streams-tcp";
    }

    @Override
    public int start() throws Exception {
        system = ActorSystem.create(Behaviors.empty(), "pekko-tcp",
                ConfigFactory.parseString("pekko.loglevel = WARNING").withFallback(ConfigFactory.load()));
        binding = Tcp.get(system).bind("127.0.0.1", 0)
                .to(Sink.foreach(connection -> connection.handleWith(Flow.of(ByteString.class), system)))
                .run(system).toCompletableFuture().get(10, TimeUnit.SECONDS);
        return binding.localAddress().getPort();
    }

    @Override
    public void stop() throws Exception {
        binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
