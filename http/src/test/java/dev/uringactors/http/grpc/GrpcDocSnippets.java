package dev.uringactors.http.grpc;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.http.UringHttp;
import dev.uringactors.http.grpc.echo.EchoService;
import dev.uringactors.http.grpc.echo.EchoServiceHandlerFactory;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.grpc.javadsl.GrpcExceptionHandler;
import org.apache.pekko.grpc.javadsl.ServiceHandler;
import org.apache.pekko.http.javadsl.ServerBinding;

import java.util.concurrent.CompletionStage;

/**
 * The gRPC snippets of docs/guide/pekko-http.md, each between a {@code // snippet:NAME} line and the next
 * {@code // end} line (samples' {@code DocsTest} compares them). Compiled, not run; GrpcThreadsTest runs its own.
 */
@SuppressWarnings("unused")
final class GrpcDocSnippets {
    private GrpcDocSnippets() {
    }

    static CompletionStage<ServerBinding> plain(ActorSystem<?> system, EchoService impl) {
        // snippet:grpc-bind
        CompletionStage<ServerBinding> binding = UringHttp.get(system).newServerAt("127.0.0.1", 8080)
            .adaptSettings(settings -> settings.withEnableHttp2(true))   // or pekko.http.server.enable-http2 = on
            .bind(EchoServiceHandlerFactory.create(impl, system));
        // end
        return binding;
    }

    static CompletionStage<ServerBinding> onTheRing(ActorSystem<?> system, EchoService impl) {
        // snippet:grpc-ring-materializer
        CompletionStage<ServerBinding> binding = UringHttp.get(system).newServerAt("127.0.0.1", 8080)
            .adaptSettings(settings -> settings.withEnableHttp2(true))
            .bind(ServiceHandler.concatOrNotFound(EchoServiceHandlerFactory.partial(impl, EchoService.name,
                UringExtension.get(system).materializer(),              // each call's streams on its connection's ring
                GrpcExceptionHandler.defaultMapper(), system)));
        // end
        return binding;
    }
}
