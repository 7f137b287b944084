package dev.uringactors.http;

import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.extractMaterializer;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequestEntity;
import static org.apache.pekko.http.javadsl.server.Directives.extractUri;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.pathSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.Directives.withoutSizeLimit;
import static org.apache.pekko.http.javadsl.server.PathMatchers.integerSegment;

/** The routes the tests serve: plain Pekko HTTP, nothing of ours. */
final class TestRoutes {
    static final String HELLO = "Hello, world!";

    private TestRoutes() {
    }

    /**
     * {@code /}: hello; {@code /thread}: the name of the thread that ran the route; {@code /uri}: the request's
     * URI as the server has it; {@code /echo} (POST): the
     * body back, of any size, once it has all arrived;
     * {@code /stream-echo} (POST): the body streamed back as it arrives; {@code /length} (POST): how many bytes the
     * body had, counted as it streams in; {@code /bytes/N}: N bytes of {@link #pattern} as a chunked stream;
     * {@code /slow}: whatever {@code slow} completes with.
     */
    static Route routes(Supplier<CompletionStage<String>> slow) {
        return concat(
                pathSingleSlash(() -> get(() -> complete(HELLO))),
                path("thread", () -> get(() -> complete(Thread.currentThread().getName()))),
                path("uri", () -> get(() -> extractUri(uri -> complete(uri.toString())))),
                path("echo", () -> post(() -> withoutSizeLimit(() -> entity(Unmarshaller.entityToByteString(),
                        body -> complete(HttpEntities.create(ContentTypes.APPLICATION_OCTET_STREAM, body)))))),
                path("stream-echo", () -> post(() -> withoutSizeLimit(() -> extractRequestEntity(entity -> complete(
                        HttpEntities.create(ContentTypes.APPLICATION_OCTET_STREAM, entity.getDataBytes())))))),
                path("length", () -> post(() -> withoutSizeLimit(() -> extractRequestEntity(entity ->
                        extractMaterializer(materializer -> onSuccess(entity.getDataBytes()
                                .runFold(0L, (n, chunk) -> n + chunk.size(), materializer),
                                n -> complete(Long.toString(n)))))))),
                pathPrefix("bytes", () -> path(integerSegment(), n -> get(() -> complete(HttpResponse.create()
                        .withEntity(HttpEntities.createChunked(ContentTypes.APPLICATION_OCTET_STREAM,
                                Source.range(0, (n - 1) / 8192).map(i -> ByteString.fromArrayUnsafe(
                                        pattern(i * 8192L, Math.min(8192, n - i * 8192)))))))))),
                path("slow", () -> get(() -> onSuccess(slow.get(), TestRoutes::text))));
    }

    private static Route text(String body) {
        return complete(body);
    }

    /** {@code length} bytes of a pattern that does not repeat within a chunk, as from offset {@code from}. */
    static byte[] pattern(long from, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            long at = from + i;
            bytes[i] = (byte) (at * 31 + (at >>> 11));
        }
        return bytes;
    }
}
