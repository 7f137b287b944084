package dev.uringactors.samples;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.Done;
import org.apache.pekko.util.ByteString;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * One shard's append-only file, through {@link UringFiles}: opened and replayed when the shard starts, appended
 * a batch at a time (with an fsync after each under {@code always}), and rewritten as a snapshot of the shard
 * when it grows past {@code samples.kv.aof-rewrite-size}. Its methods start file work and return its stage; the
 * shard actor owning it runs one at a time and takes their outcomes back as messages.
 *
 * <p>The file never holds part of a record before a whole one: a batch is written whole, in pieces of at most
 * the rings' I/O size, and an append that fails is cut off again; a last record cut short all the same (the
 * process killed mid-append) is cut off when the file is replayed, as Redis's {@code aof-load-truncated} does.
 * Parsing, cutting and renaming run on {@code blocking}, never on a ring's thread.
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

    /** What a replay kept of the file, and what it cut off its end: a record cut short, or 0. */
    record Replayed(long kept, long cut) {
    }

    private static final int REPLAY_CHUNK = 1 << 20;
    private static final CompletionStage<Done> DONE = CompletableFuture.completedFuture(Done.getInstance());

    private final UringFiles files;
    private final Executor blocking;
    private final int maxWrite;
    private final Path path;
    private final Fsync fsync;
    private final KvNode.Counters counters;
    private FileHandle file;
    private long size;
    private long lastSyncNanos = System.nanoTime();
    private boolean unsynced;

    KvAppendLog(UringFiles files, Executor blocking, int maxWrite, Path dir, int shard, Fsync fsync,
                KvNode.Counters counters) {
        this.files = files;
        this.blocking = blocking;
        this.maxWrite = maxWrite;
        this.path = dir.resolve("shard-" + shard + ".aof");
        this.fsync = fsync;
        this.counters = counters;
    }

    long size() {
        return size;
    }

    /** Opens the file (made if need be) and {@link #replay}s it. */
    CompletionStage<Replayed> open(Consumer<byte[][]> apply) {
        return files.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)
                .thenCompose(handle -> {
                    file = handle;
                    return replay(apply);
                });
    }

    /**
     * Gives each whole record of the file, from its start, to {@code apply} (on {@code blocking}, in order); a
     * last record cut short is cut off the file. A record that is not RESP fails the stage: the file is damaged.
     */
    CompletionStage<Replayed> replay(Consumer<byte[][]> apply) {
        KvRecordReader reader = new KvRecordReader(apply);
        return readFrom(0, reader).thenComposeAsync(end -> {
            long kept = reader.kept();
            if (kept < end) {
                cut(kept);
            }
            size = kept;
            return CompletableFuture.completedFuture(new Replayed(kept, end - kept));
        }, blocking);
    }

    private CompletionStage<Long> readFrom(long position, KvRecordReader reader) {
        return files.read(file, position, REPLAY_CHUNK)
                .thenApplyAsync(chunk -> {
                    reader.feed(chunk, position);
                    return chunk.size();
                }, blocking)
                .thenCompose(n -> n == 0 ? CompletableFuture.completedFuture(position) : readFrom(position + n, reader));
    }

    /**
     * Appends {@code batch}; with {@code always}, or a second after the last fsync, the file is synced too. If the
     * write or its fsync fails, the file is cut back to where it was before the stage fails.
     */
    CompletionStage<Done> append(ByteString batch) {
        long at = size;
        counters.appendBytes.add(batch.size());
        unsynced = true;
        CompletableFuture<Done> appended = new CompletableFuture<>();
        write(file, at, batch).thenCompose(done -> {
            size = at + batch.size();
            return syncIfDue();
        }).whenComplete((done, failure) -> {
            if (failure == null) {
                appended.complete(done);
                return;
            }
            blocking.execute(() -> {
                try {
                    cut(at);
                    size = at;
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
                appended.completeExceptionally(failure);
            });
        });
        return appended;
    }

    /** Writes all of {@code data} at {@code position}, a piece of at most the rings' I/O size at a time. */
    private CompletionStage<Done> write(FileHandle to, long position, ByteString data) {
        if (data.isEmpty()) {
            return DONE;
        }
        int piece = Math.min(data.size(), maxWrite);
        return files.write(to, position, data.take(piece)) // a write writes all it is given
                .thenCompose(n -> write(to, position + piece, data.drop(piece)));
    }

    /** The fsync everysec owes, if a second has passed; nothing otherwise. */
    CompletionStage<Done> syncIfDue() {
        boolean due = fsync == Fsync.ALWAYS
                || (fsync == Fsync.EVERYSEC && System.nanoTime() - lastSyncNanos >= 1_000_000_000L);
        return due ? sync() : DONE;
    }

    /** Whether something appended has not been synced yet. */
    boolean unsynced() {
        return unsynced;
    }

    /** Syncs what was appended since the last fsync, whatever the fsync policy (at shutdown, as Redis does). */
    CompletionStage<Done> sync() {
        if (!unsynced) {
            return DONE;
        }
        unsynced = false;
        lastSyncNanos = System.nanoTime();
        counters.fsyncs.increment();
        return files.fsync(file);
    }

    /**
     * Replaces the file with {@code snapshot}: written to a file beside it and synced, renamed over it (the
     * directory synced too), and the new file opened for the appends that follow; the old handle is closed. If
     * any step fails the file is as it was, and the file beside it is gone.
     */
    CompletionStage<Done> rewrite(ByteString snapshot) {
        Path next = path.resolveSibling(path.getFileName() + ".rewrite");
        FileHandle old = file;
        return files.open(next, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)
                .thenCompose(handle -> write(handle, 0, snapshot)
                        .thenCompose(done -> files.fsync(handle))
                        .thenApplyAsync(done -> {
                            renameOver(next);
                            return handle;
                        }, blocking)
                        .whenComplete((renamed, failure) -> {
                            if (failure != null) {
                                files.close(handle);
                                deleteQuietly(next);
                            }
                        }))
                .thenApply(handle -> {
                    file = handle;
                    size = snapshot.size();
                    counters.fsyncs.increment();
                    files.close(old); // the snapshot is durable whether or not this close succeeds
                    return Done.getInstance();
                });
    }

    /** Closes the file; nothing may be appended after. */
    CompletionStage<Done> close() {
        return file == null ? DONE : files.close(file);
    }

    /** Cuts the file to {@code length} bytes, durably. */
    private void cut(long length) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.truncate(length);
            channel.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException("cutting " + path + " to " + length + " bytes", e);
        }
    }

    private void renameOver(Path next) {
        try {
            Files.move(next, path, StandardCopyOption.ATOMIC_MOVE); // rename(2): one step
            try (FileChannel directory = FileChannel.open(path.getParent(), StandardOpenOption.READ)) {
                directory.force(true); // the rename itself is durable
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a leftover .rewrite is truncated by the next rewrite
        }
    }
}
