package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.file.FileHandle;

import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The files of one actor system open through JDK channels, by the id of the open that gave each. The JDK keeps a
 * channel's descriptor to itself, so a handle carries {@link FileHandle#NO_DESCRIPTOR} and the id finds its
 * channel; once the file is closed the id is gone, and a request with the handle (or a copy) fails with
 * {@link java.nio.channels.ClosedChannelException}, as on the rings; so does a handle made up with an open one's
 * id that is not that handle (or a copy of it for another file actor).
 */
public final class JdkOpenFiles {
    /** An open file and the handle given out for it. */
    private record Given(JdkOpenFile file, FileHandle handle) {
        boolean of(FileHandle other) {
            return other.fd() == FileHandle.NO_DESCRIPTOR && !other.polled() && !other.registered()
                    && other.direct() == handle.direct() && other.path().equals(handle.path());
        }
    }

    private final ConcurrentHashMap<Long, Given> open = new ConcurrentHashMap<>();
    private final AtomicLong lastId = new AtomicLong();
    /** The actor system has ended: no file is let in any more. */
    private volatile boolean closed;

    /**
     * Records a file an open gave; its handle sends its requests to file actor {@code ring}. Once the actor system
     * has ended ({@link #closeAll}), an open that finishes then is closed and refused: nothing would close it.
     */
    FileHandle opened(JdkOpenFile file, Path path, boolean direct, int ring) throws ClosedChannelException {
        long id = lastId.incrementAndGet();
        FileHandle handle = new FileHandle(FileHandle.NO_DESCRIPTOR, path, direct, false, ring, id, false);
        open.put(id, new Given(file, handle));
        // Read after the put, as closeAll sets it before it looks: either closeAll saw this file, or it is seen here.
        if (closed) {
            Given missed = open.remove(id);
            if (missed != null) {
                missed.file().closeWhenUnused();
            }
            throw new ClosedChannelException();
        }
        return handle;
    }

    /**
     * The open file of {@code file}, taken for one request, which must {@link JdkOpenFile#release} it when done;
     * null if the file is closed or closing.
     */
    JdkOpenFile use(FileHandle file) {
        Given given = given(file);
        return given != null && given.file().acquire() ? given.file() : null;
    }

    /** Whether {@code file} is still open here: opened through the JDK backend's actors, and not closed since. */
    public boolean isOpen(FileHandle file) {
        return given(file) != null;
    }

    /**
     * Takes {@code file} out of the table: its open file, which the caller must now close
     * ({@link JdkOpenFile#closeWhenUnused}), or null if it was closed already.
     */
    JdkOpenFile closing(FileHandle file) {
        Given given = given(file);
        return given != null && open.remove(file.id(), given) ? given.file() : null;
    }

    private Given given(FileHandle file) {
        Given given = open.get(file.id());
        return given != null && given.of(file) ? given : null;
    }

    /** The actor system has ended: every file still open is closed once its last request is done. */
    void closeAll() {
        closed = true;
        open.keySet().forEach(id -> {
            Given given = open.remove(id);
            if (given != null) {
                given.file().closeWhenUnused();
            }
        });
    }
}
