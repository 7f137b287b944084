package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.file.FileStat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file open through a JDK {@link FileChannel}, and how many requests are using it. A close waits for them:
 * closing a channel would fail a read running on it ({@code AsynchronousCloseException}), while the ring lets
 * each request taken before a CLOSE complete as if the file were still open. Once closing, it takes no new user.
 */
final class JdkOpenFile {
    private static final int CLOSING = 1;
    private static final int ONE_USER = 2;
    private final FileChannel channel;
    /** Where the file was found; for an open beneath a directory, with no symlink in it then. */
    private final Path path;
    private final LinkOption[] statOptions;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    /**
     * The requests using the file, in units of {@link #ONE_USER}, and {@link #CLOSING}: without a lock, as every
     * read takes and gives back its file, from many threads at once.
     */
    private final AtomicInteger state = new AtomicInteger();

    /**
     * The file {@code channel} opened at {@code path}; {@code beneath}: the path came from {@link BeneathPath},
     * and a symlink put at its end since is not followed by {@link #stat}.
     */
    JdkOpenFile(FileChannel channel, Path path, boolean beneath) {
        this.channel = channel;
        this.path = path;
        this.statOptions = beneath ? new LinkOption[] {LinkOption.NOFOLLOW_LINKS} : new LinkOption[0];
    }

    /**
     * The stat of this file: its size is the open file's own; the rest is the path's where it was found, which
     * for a file opened beneath a directory follows no symlink put there since (it cannot lead out).
     */
    FileStat stat() throws IOException {
        FileStat found = JdkStat.of(path, statOptions);
        return new FileStat(channel.size(), found.mode(), found.lastModified(), found.blockSize());
    }

    /** The channel, for a user between {@link JdkOpenFiles#use} and {@link #release}. */
    FileChannel channel() {
        return channel;
    }

    /** Takes the file for one more request; false once it is closing. */
    boolean acquire() {
        for (int s = state.get(); (s & CLOSING) == 0; s = state.get()) {
            if (state.compareAndSet(s, s + ONE_USER)) {
                return true;
            }
        }
        return false;
    }

    /** A request is done with the file; the last one closes it if a close is waiting. */
    void release() {
        if (state.addAndGet(-ONE_USER) == CLOSING) {
            closeChannel();
        }
    }

    /**
     * Closes the channel now if no request uses it, else once the last one is done; completes then, or with the
     * close's failure. Called once, by whoever took the file out of the table.
     */
    CompletionStage<Void> closeWhenUnused() {
        if (state.getAndUpdate(s -> s | CLOSING) == 0) {
            closeChannel();
        }
        return closed;
    }

    private void closeChannel() {
        try {
            channel.close();
            closed.complete(null);
        } catch (IOException e) {
            closed.completeExceptionally(e);
        }
    }
}
