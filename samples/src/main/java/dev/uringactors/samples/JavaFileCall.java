package dev.uringactors.samples;

import dev.uringactors.ring.Errno;
import dev.uringactors.ring.UringException;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.OptionalInt;

/**
 * A file operation of Java's whose failure is said as the ring's are: the operation, the file as the user knows
 * it, and the errno. Java keeps the errno only in the exception's class (ENOENT, EACCES, EEXIST) or as its
 * strerror text (every other), and names the file by the path it was given, which may be a temporary one.
 */
final class JavaFileCall {
    /** The highest errno Linux has (EHWPOISON). */
    private static final int LAST_ERRNO = 133;

    /** A call that may fail as Java's file operations do. */
    interface Call<T> {
        T run() throws IOException;
    }

    private JavaFileCall() {
    }

    /**
     * Runs {@code call}; its failure becomes a {@link UringException} for {@code operation}, or an IOException
     * that names it where Java kept no errno.
     */
    static <T> T run(String operation, Call<T> call) throws IOException {
        try {
            return call.run();
        } catch (IOException e) {
            OptionalInt errno = errnoOf(e);
            if (errno.isEmpty()) {
                throw new IOException(operation + ": " + e.getMessage(), e);
            }
            UringException named = new UringException(operation, errno.getAsInt(), null);
            named.initCause(e);
            throw named;
        }
    }

    private static OptionalInt errnoOf(IOException e) {
        if (e instanceof NoSuchFileException) {
            return OptionalInt.of(Errno.ENOENT);
        }
        if (e instanceof AccessDeniedException) {
            return OptionalInt.of(Errno.EACCES);
        }
        if (e instanceof FileAlreadyExistsException) {
            return OptionalInt.of(Errno.EEXIST);
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            for (int errno = 1; errno <= LAST_ERRNO; errno++) {
                if (Errno.describe(errno).equals(f.getReason())) {
                    return OptionalInt.of(errno);
                }
            }
        }
        return OptionalInt.empty();
    }
}
