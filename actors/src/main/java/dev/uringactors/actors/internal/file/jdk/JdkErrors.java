package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.UringException;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * The JDK's file exceptions as the {@link UringException} the ring would have answered with: the same errno, op
 * and target, and the same hint, so that a caller cannot tell the backends apart by their failures. The JDK keeps
 * the errno to itself and gives the C library's text for it (strerror), so the errno is found by that text
 * ({@link Errno#ofDescription}); the JDK's exception is the cause. What no text matches is EIO.
 */
final class JdkErrors {
    private JdkErrors() {
    }

    /**
     * What a request that {@code op} would have carried out answers with when the JDK threw {@code e} for
     * {@code target} (an {@code IOException}, or a channel's refusal to read or write): a
     * {@link ClosedChannelException} or a {@link UringException} stays as it is, the rest becomes a
     * {@link UringException}.
     */
    static Exception of(Opcode op, String target, Exception e) {
        return e instanceof ClosedChannelException ? e : asUring(op, target, e);
    }

    /** {@code e} as the {@link UringException} {@code op} would have failed with (EIO where its errno is unknown). */
    static UringException asUring(Opcode op, String target, Exception e) {
        if (e instanceof UringException u) {
            return u;
        }
        UringException u = UringException.ofResult(op, -errno(e), target, 0);
        u.initCause(e);
        return u;
    }

    /** A UringException of its own, for a refusal the JDK does not make itself (an escape, say). */
    static UringException refusal(Opcode op, String target, int errno) {
        return UringException.ofResult(op, -errno, target, 0);
    }

    /** The errno behind {@code e}, as far as the JDK lets it be known; EIO where it does not. */
    static int errno(Exception e) {
        if (e instanceof NoSuchFileException) {
            return Errno.ENOENT;
        }
        if (e instanceof AccessDeniedException) {
            return Errno.EACCES;
        }
        if (e instanceof FileAlreadyExistsException) {
            return Errno.EEXIST;
        }
        if (e instanceof NotDirectoryException) {
            return Errno.ENOTDIR;
        }
        if (e instanceof FileSystemLoopException) {
            return Errno.ELOOP;
        }
        // A read of a write-only file, a write to a read-only one: read(2) and write(2) say EBADF.
        if (e instanceof NonReadableChannelException || e instanceof NonWritableChannelException) {
            return Errno.EBADF;
        }
        String text = e instanceof FileSystemException f ? f.getReason() : e.getMessage();
        if (e instanceof IOException && text != null && text.contains("multiple of the block size")) {
            return Errno.EINVAL; // O_DIRECT out of alignment: the JDK refuses what the kernel would with EINVAL
        }
        int errno = Errno.ofDescription(text);
        return errno != 0 ? errno : Errno.EIO;
    }
}
