package dev.uringactors.samples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uringactors.actors.stream.UringFileIO;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.http.UringHttp;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.pathSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

/**
 * A Pekko HTTP route set, served either on the rings ({@link UringHttp}) or on Pekko's own TCP ({@link Http}):
 * the same routes, the same settings, one line apart. {@code /} says hello, {@code /echo} (POST) echoes a JSON
 * document through Jackson, {@code /files/NAME} downloads a regular file directly in the root directory through
 * {@link UringFileIO}.
 */
public final class PekkoHttpServer {
    static final String HELLO = "Hello, world!";

    /** Which TCP the server runs on. */
    public enum Transport { URING, PEKKO }

    private PekkoHttpServer() {
    }

    /**
     * Binds {@code address} with the routes; {@code bound} completes with the address, or with the bind's failure.
     * Without a root, {@code /files/} has nothing to serve.
     */
    public static Behavior<TcpProtocol.Event> create(InetSocketAddress address,
                                                     CompletableFuture<InetSocketAddress> bound,
                                                     Transport transport, Optional<Path> root) {
        return Behaviors.setup(ctx -> {
            String host = address.getAddress().getHostAddress();
            ServerBuilder server = transport == Transport.URING
                    ? UringHttp.get(ctx.getSystem()).newServerAt(host, address.getPort())
                    : Http.get(ctx.getSystem()).newServerAt(host, address.getPort());
            server.bind(routes(root)).whenComplete((binding, failure) -> {
                if (failure != null) {
                    bound.completeExceptionally(failure);
                } else {
                    binding.addToCoordinatedShutdown(java.time.Duration.ofSeconds(5), ctx.getSystem());
                    bound.complete(binding.localAddress());
                }
            });
            return Behaviors.empty();
        });
    }

    static Route routes(Optional<Path> root) {
        return concat(
                pathSingleSlash(() -> get(() -> complete(HELLO))),
                path("echo", () -> post(() -> entity(Jackson.unmarshaller(JsonNode.class),
                        json -> complete(StatusCodes.OK, json, Jackson.marshaller())))),
                pathPrefix("files", () -> path(segment(), name -> get(() -> download(root, name)))));
    }

    /** A regular file named directly in the root (no path, no link that leads out), or 404. */
    private static Route download(Optional<Path> root, String name) {
        if (root.isEmpty() || name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('\0') >= 0) {
            return complete(StatusCodes.NOT_FOUND);
        }
        try {
            Path file = root.get().resolve(name).toRealPath();
            if (!file.getParent().equals(root.get()) || !Files.isRegularFile(file)) {
                return complete(StatusCodes.NOT_FOUND);
            }
            return complete(HttpEntities.create(ContentTypes.APPLICATION_OCTET_STREAM, Files.size(file),
                    UringFileIO.fromPath(file)));
        } catch (IOException | java.nio.file.InvalidPathException e) {
            return complete(StatusCodes.NOT_FOUND);
        }
    }
}
