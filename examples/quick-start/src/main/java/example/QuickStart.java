package example;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.stream.UringFileIO;
import dev.uringactors.http.UringHttp;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.server.Route;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;

/**
 * A Pekko HTTP service on the rings: {@code GET /hello} answers, {@code GET /file} downloads a file read through
 * io_uring. {@code java -jar target/quick-start.jar [PORT [FILE]]}: port 8080 (0 for any free one) and pom.xml by
 * default. SIGTERM or Ctrl-C stops it, letting requests in flight finish for up to 5 s.
 */
public final class QuickStart {
    private QuickStart() {
    }

    public static void main(String[] args) {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
        Path file = Path.of(args.length > 1 ? args[1] : "pom.xml");
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "quick-start");

        // snippet:quick-start
        Route route = concat(
            path("hello", () -> get(() -> complete("Hello from the rings"))),
            path("file", () -> get(() -> complete(HttpEntities.createChunked(
                ContentTypes.APPLICATION_OCTET_STREAM, UringFileIO.fromPath(file))))));  // read on the ring
        CompletionStage<ServerBinding> bound =
            UringHttp.get(system).newServerAt("127.0.0.1", port).bind(route);         // was: Http.get(system)...
        // end
        bound.whenComplete((binding, failure) -> {
            if (failure != null) {
                system.log().error("cannot bind", failure);
                system.terminate();
            } else {
                binding.addToCoordinatedShutdown(Duration.ofSeconds(5), system);  // SIGTERM lets requests finish
                System.out.println("serving http:/" + binding.localAddress() + "/hello and /file on "
                        + UringExtension.get(system).backend());
            }
        });
    }
}
