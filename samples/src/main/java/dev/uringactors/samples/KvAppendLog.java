package dev.uringactors.samples;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.Done;
import org.apache.pekko.util.ByteString;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One shard's append-only file, through {@link UringFiles}: opened and replayed when the shard starts, appended
 * a batch at a time (with an fsync after each under {@code always}), and rewritten as a snapshot of the shard
 * when it grows past {@code samples.kv.aof-rewrite-size}. Its methods start file work and return its stage; the
 * shard actor owning it runs one at a time and takes their outcomes back as messages.
 */
final class KvAppendLog {
    /** When appends reach the device. */
    enum Fsync {
        /** After every batch, before its replies. */
        ALWAYS,
        /** At most a second after the append (the replies go once the append is in the page cache). */
        EVERYSEC,
        /** When the kernel sees fit. */
        NO
    }

    private static final int REPLAY_CHUNK = 1 << 20;

    private final UringFiles files;
    private final Path path;
    private final Fsync fsync;
    private final KvNode.Counters counters;
    private FileHandle file;
    private long size;
    private long lastSyncNanos = System.nanoTime();
    private boolean unsynced;

    KvAppendLog(UringFiles files, Path dir, int shard, Fsync fsync, KvNode.Counters counters) {
        this.files = files;
        this.path = dir.resolve("shard-" + shard + ".aof");
        this.fsync = fsync;
        this.counters = counters;
    }

    long size() {
        return size;
    }

    /** Opens the file (made if need be) and replays it into {@code replay}, a parser fed chunk by chunk. */
    CompletionStage<Done> open(Consumer<ByteString> replay) {
        return files.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)
                .thenCompose(handle -> {
                    file = handle;
                    return readFrom(0, replay);
                });
    }

    private CompletionStage<Done> readFrom(long position, Consumer<ByteString> replay) {
        return files.read(file, position, REPLAY_CHUNK).thenCompose(chunk -> {
            if (chunk.isEmpty()) {
                size = position;
                return CompletableFuture.completedFuture(Done.getInstance());
            }
            replay.accept(chunk);
            return readFrom(position + chunk.size(), replay);
        });
    }

    /** Appends {@code batch}; with {@code always}, or a second after the last fsync, the file is synced too. */
    CompletionStage<Done> append(ByteString batch) {
        long at = size;
        size += batch.size();
        counters.appendBytes.add(batch.size());
        unsynced = true;
        return files.write(file, at, batch).thenCompose(n -> syncIfDue());
    }

    /** The fsync everysec owes, if a second has passed; nothing otherwise. */
    CompletionStage<Done> syncIfDue() {
        boolean due = unsynced && (fsync == Fsync.ALWAYS
                || (fsync == Fsync.EVERYSEC && System.nanoTime() - lastSyncNanos >= 1_000_000_000L));
        if (!due) {
            return CompletableFuture.completedFuture(Done.getInstance());
        }
        unsynced = false;
        lastSyncNanos = System.nanoTime();
        counters.fsyncs.increment();
        return files.fsync(file);
    }

    /**
     * Replaces the file with {@code snapshot}: written to a file beside it and synced, renamed over it, and the
     * new file opened for the appends that follow; the old handle is closed.
     */
    CompletionStage<Done> rewrite(ByteString snapshot) {
        Path next = path.resolveSibling(path.getFileName() + ".rewrite");
        FileHandle old = file;
        return files.open(next, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)
                .thenCompose(handle -> files.write(handle, 0, snapshot)
                        .thenCompose(n -> files.fsync(handle))
                        .thenApply(done -> handle))
                .thenCompose(handle -> {
                    try {
                        Files.move(next, path, StandardCopyOption.ATOMIC_MOVE); // rename(2): one step
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    file = handle;
                    size = snapshot.size();
                    counters.fsyncs.increment();
                    return files.close(old);
                });
    }

    /** Closes the file; nothing may be appended after. */
    CompletionStage<Done> close() {
        return file == null ? CompletableFuture.completedFuture(Done.getInstance()) : files.close(file);
    }
}
