package dev.uringactors.actors;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The files opened through the actors and not yet closed, by fd, each with the id of the open that gave it; one
 * table for all the rings of an extension. A {@link FileHandle} carries that id: once its file is closed (and the
 * fd number perhaps taken by a later open), the handle no longer matches, and a request with it fails with
 * {@link java.nio.channels.ClosedChannelException} instead of reaching whatever file has that number now. A
 * second close of a handle closes nothing. (An fd closed behind the actors' back, with close(2) from elsewhere,
 * cannot be seen here.)
 */
final class OpenFiles {
    private final ConcurrentHashMap<Integer, Long> open = new ConcurrentHashMap<>();
    private final AtomicLong lastId = new AtomicLong();

    /** Records an fd an open returned; the handle carries the open's id. */
    FileHandle opened(int fd, Path path, boolean direct, boolean polled, int ring) {
        long id = lastId.incrementAndGet();
        open.put(fd, id);
        return new FileHandle(fd, path, direct, polled, ring, id);
    }

    /** Whether {@code file} is still the open file behind its fd. */
    boolean isOpen(FileHandle file) {
        Long id = open.get(file.fd());
        return id != null && id == file.id();
    }

    /**
     * Takes {@code file} out of the table; true if it was open, and the caller must now close its fd, false if it
     * was closed already (its fd is not the caller's to close).
     */
    boolean closing(FileHandle file) {
        return open.remove(file.fd(), file.id());
    }
}
