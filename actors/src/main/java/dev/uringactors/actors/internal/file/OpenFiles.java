package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.ring.Descriptors;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The files opened through the actors and not yet closed, each with the id of the open that gave it; one table
 * for all the rings of an extension, keyed by fd, or by ring and slot for a registered file. A
 * {@link FileHandle} carries that id: once its file is closed (and the fd number or slot perhaps taken by a later
 * open), the handle no longer matches, and a request with it fails with
 * {@link java.nio.channels.ClosedChannelException} instead of reaching whatever file has that number now. A
 * second close of a handle closes nothing. (An fd closed behind the actors' back, with close(2) from elsewhere,
 * cannot be seen here.) The table keeps the handle it gave out, and takes only that one (or a copy of it for
 * another ring, {@link FileHandle#onRing}): a handle made up by a caller, say with the id and fd of an open file
 * but polled or registered where that file is not, is refused as closed, so it cannot send a request to a ring
 * that the file does not belong to.
 */
public final class OpenFiles {
    private final ConcurrentHashMap<Long, FileHandle> open = new ConcurrentHashMap<>();
    private final AtomicLong lastId = new AtomicLong();

    /** Records a file an open returned ({@code fd} is its slot when registered); the handle carries the open's id. */
    FileHandle opened(int fd, Path path, boolean direct, int ring, boolean registered) {
        long id = lastId.incrementAndGet();
        FileHandle file = new FileHandle(fd, path, direct, false, ring, id, registered);
        open.put(key(file), file);
        return file;
    }

    /**
     * The handle of {@code file}, not handed out yet, for reads and writes through the IOPOLL ring: the same open
     * file (fd and id) as far as this table is concerned.
     */
    FileHandle polled(FileHandle file) {
        FileHandle polled = new FileHandle(file.fd(), file.path(), file.direct(), true, file.ring(), file.id(), false);
        open.replace(key(file), file, polled);
        return polled;
    }

    /** Whether {@code file} is still the open file behind its fd or slot. */
    public boolean isOpen(FileHandle file) {
        return given(file) != null;
    }

    /**
     * Takes {@code file} out of the table; true if it was open, and the caller must now close it, false if it
     * was closed already (its fd or slot is not the caller's to close).
     */
    public boolean closing(FileHandle file) {
        FileHandle given = given(file);
        return given != null && open.remove(key(file), given);
    }

    /** The handle the table gave out for {@code file}'s open, if {@code file} is it (on any ring); else null. */
    private FileHandle given(FileHandle file) {
        FileHandle given = open.get(key(file));
        return given != null && given.id() == file.id() && given.polled() == file.polled()
                && given.direct() == file.direct() && given.path().equals(file.path()) ? given : null;
    }

    /**
     * The rings have closed at shutdown: every file still open is closed, so that no fd outlives them (a close
     * its owner sends while the actor system stops may reach a file actor that has stopped first). A later close
     * of its handle closes nothing.
     */
    void closeAll() {
        open.forEach((key, file) -> {
            if (key >= 0 && open.remove(key, file)) { // registered files went with their rings' tables
                Descriptors.close((int) (long) key);
            }
        });
    }

    /** Ring {@code ring}'s registered table is gone (the ring closed): its registered files are closed with it. */
    void forgetRegistered(int ring) {
        open.keySet().removeIf(key -> key < 0 && ringOf(key) == ring);
    }

    /** An fd as itself; a registered file's ring and slot as a negative number that no fd can be. */
    private static long key(FileHandle file) {
        return file.registered() ? -(((long) file.ring() << 32) | file.fd()) - 1 : file.fd();
    }

    private static int ringOf(long key) {
        return (int) ((-(key + 1)) >>> 32);
    }
}
