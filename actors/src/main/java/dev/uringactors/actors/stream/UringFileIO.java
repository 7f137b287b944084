package dev.uringactors.actors.stream;

import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SinkShape;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Pekko Streams sources and sinks of files through io_uring, shaped like Pekko's {@code FileIO}: switching is
 * an import change. The materialized {@link IOResult} counts the bytes; a failed stream fails it with
 * {@code IOOperationIncompleteException}, as {@code FileIO} does. Data is copied once between native memory
 * and each {@code ByteString} (see {@code FileOps} for why).
 */
public final class UringFileIO {
    /** As FileIO: 8 KiB chunks. */
    public static final int DEFAULT_CHUNK_SIZE = 8192;
    /** Reads or writes in flight per stream. */
    static final int IN_FLIGHT = 4;

    private UringFileIO() {
    }

    /** The failure a stage reports: the cause inside the CompletionException that async stages wrap it in. */
    static Throwable cause(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** The file's bytes, in chunks of 8 KiB. */
    public static Source<ByteString, CompletionStage<IOResult>> fromPath(Path path) {
        return fromPath(path, DEFAULT_CHUNK_SIZE);
    }

    /** The file's bytes in chunks of {@code chunkSize} (the last may be shorter). */
    public static Source<ByteString, CompletionStage<IOResult>> fromPath(Path path, int chunkSize) {
        return fromPath(path, chunkSize, 0);
    }

    /** As FileIO's: the file's bytes from {@code startPosition} on, in chunks of {@code chunkSize}. */
    public static Source<ByteString, CompletionStage<IOResult>> fromPath(Path path, int chunkSize,
                                                                        long startPosition) {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize must be positive: " + chunkSize);
        }
        if (startPosition < 0) {
            throw new IllegalArgumentException("startPosition must not be negative: " + startPosition);
        }
        return Source.fromGraph(new FileStage<>(SourceShape.of(Outlet.<ByteString>create("UringFileSource.out")),
                (shape, result) -> new FileSourceLogic(shape, result, path, chunkSize, startPosition)));
    }

    /** Writes the stream to {@code path}, creating it or replacing its contents. */
    public static Sink<ByteString, CompletionStage<IOResult>> toPath(Path path) {
        return toPath(path, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING));
    }

    /** Writes the stream to {@code path} opened with {@code options} (APPEND appends at the end). */
    public static Sink<ByteString, CompletionStage<IOResult>> toPath(Path path, Set<? extends OpenOption> options) {
        return Sink.fromGraph(new FileStage<>(SinkShape.of(Inlet.<ByteString>create("UringFileSink.in")),
                (shape, result) -> new FileSinkLogic(shape, result, path, options)));
    }
}
