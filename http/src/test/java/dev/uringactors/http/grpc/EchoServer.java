package dev.uringactors.http.grpc;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.http.UringHttp;
import dev.uringactors.http.grpc.echo.EchoService;
import dev.uringactors.http.grpc.echo.EchoServiceHandlerFactory;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.grpc.javadsl.GrpcExceptionHandler;
import org.apache.pekko.grpc.javadsl.ServiceHandler;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.japi.function.Function;

import java.util.concurrent.CompletionStage;

/** The echo service served over HTTP/2 (cleartext, prior knowledge) by pekko-grpc's handler, on a transport. */
final class EchoServer {
    private EchoServer() {
    }

    /** What accepts the connections and runs their HTTP stacks. */
    enum Transport {
        /** Pekko HTTP's own: {@code Http.get(system)}. */
        PEKKO_HTTP,
        /** The rings: {@code UringHttp.get(system)}. */
        RINGS;

        ServerBuilder serverAt(ClassicActorSystemProvider system, String host, int port) {
            return switch (this) {
                case PEKKO_HTTP -> Http.get(system.classicSystem()).newServerAt(host, port);
                case RINGS -> UringHttp.get(system).newServerAt(host, port);
            };
        }

        /**
         * pekko-grpc's handler of {@code service}; on the rings with the streams it runs for each call on the ring
         * of the call's connection, as the README advises.
         */
        Function<HttpRequest, CompletionStage<HttpResponse>> handler(EchoService service,
                                                                     ClassicActorSystemProvider system) {
            return switch (this) {
                case PEKKO_HTTP -> EchoServiceHandlerFactory.create(service, system);
                case RINGS -> ServiceHandler.concatOrNotFound(EchoServiceHandlerFactory.partial(service,
                        EchoService.name, UringExtension.get(Adapter.toTyped(system.classicSystem())).materializer(),
                        GrpcExceptionHandler.defaultMapper(), system));
            };
        }
    }

    /** Binds {@code service} on a free port of 127.0.0.1. */
    static CompletionStage<ServerBinding> bind(Transport transport, ClassicActorSystemProvider system,
                                               TestEchoService service) {
        return transport.serverAt(system, "127.0.0.1", 0)
                .adaptSettings(settings -> settings.withEnableHttp2(true))
                .bind(transport.handler(service, system));
    }
}
