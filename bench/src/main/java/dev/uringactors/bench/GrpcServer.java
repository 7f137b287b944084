package dev.uringactors.bench;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.bench.grpc.BenchEcho;
import dev.uringactors.bench.grpc.BenchEchoHandlerFactory;
import dev.uringactors.bench.grpc.Payload;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.http.UringHttp;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.grpc.javadsl.GrpcExceptionHandler;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.SystemMaterializer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The grpc benchmark's server ({@code grpc-server --transport uring|pekko}): the echo service of bench_echo.proto
 * through pekko-grpc's handler, over cleartext HTTP/2, on the rings (one; the handler's streams on the nearest ring,
 * {@code UringExtension.materializer()}) or on Pekko HTTP's own TCP (the system's materializer). Says where
 * it listens, then serves until the process is stopped.
 */
final class GrpcServer {
    private GrpcServer() {
    }

    static void main(Args args) throws Exception {
        String transport = args.string("transport", "uring");
        if (!transport.equals("uring") && !transport.equals("pekko")) {
            throw new IllegalArgumentException("--transport " + transport + ": uring or pekko");
        }
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "grpc-" + transport, ConfigFactory
                .parseString("uring.rings = 1\npekko.loglevel = WARNING").withFallback(ConfigFactory.load()));
        String host = "127.0.0.1";
        int port = args.intValue("port", 0);
        boolean rings = transport.equals("uring");
        ServerBuilder builder = rings ? UringHttp.get(system).newServerAt(host, port)
                : Http.get(system).newServerAt(host, port);
        // The handler runs a stream per call: on the rings, on the ring of the connection that carries the call.
        Materializer materializer = rings ? UringExtension.get(system).materializer()
                : SystemMaterializer.get(system).materializer();
        ServerBinding binding = builder.adaptSettings(settings -> settings.withEnableHttp2(true))
                .bind(BenchEchoHandlerFactory.partial(GrpcServer::echo, BenchEcho.name, materializer,
                        GrpcExceptionHandler.defaultMapper(), system)).toCompletableFuture().get(30, TimeUnit.SECONDS);
        System.out.println("grpc-server (transport " + transport + ") listening on " + host + ":"
                + binding.localAddress().getPort());
        system.getWhenTerminated().toCompletableFuture().join();
    }

    private static CompletionStage<Payload> echo(Payload in) {
        return CompletableFuture.completedFuture(in);
    }
}
