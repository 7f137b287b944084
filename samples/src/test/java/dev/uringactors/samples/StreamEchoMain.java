package dev.uringactors.samples;

import dev.uringactors.actors.stream.UringTcp;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;

/**
 * An echo server on {@link UringTcp}'s streams, which no sample uses: it binds 127.0.0.1 on a port of the
 * kernel's choosing and prints {@code listening on 127.0.0.1:PORT}; SIGTERM stops it (Pekko's shutdown hook).
 */
final class StreamEchoMain {
    private StreamEchoMain() {
    }

    public static void main(String[] args) {
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "stream-echo");
        UringTcp.get(system).bind("127.0.0.1", 0)
                .to(Sink.foreach(c -> c.handleWith(Flow.of(ByteString.class), system)))
                .run(system)
                .whenComplete((binding, failure) -> {
                    if (failure != null) {
                        failure.printStackTrace();
                        system.terminate();
                    } else {
                        System.out.println("listening on 127.0.0.1:" + binding.localAddress().getPort());
                    }
                });
    }
}
