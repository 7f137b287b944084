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
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The JDK's file exceptions as the {@link UringException} the ring would have answered with: the same errno, op
 * and target, and the same hint, so that a caller cannot tell the backends apart by their failures. The JDK keeps
 * the errno to itself and gives the C library's text for it (strerror), so the errno is found by that text; the
 * JDK's exception is the cause. What no text matches is EIO.
 */
final class JdkErrors {
    /** glibc's strerror text of the errnos a file request can meet, longest first (one may begin another). */
    private static final List<Map.Entry<String, Integer>> BY_TEXT = Map.ofEntries(
            Map.entry("Operation not permitted", Errno.EPERM),
            Map.entry("No such file or directory", Errno.ENOENT),
            Map.entry("Interrupted system call", Errno.EINTR),
            Map.entry("Input/output error", Errno.EIO),
            Map.entry("No such device or address", 6),
            Map.entry("Bad file descriptor", Errno.EBADF),
            Map.entry("Resource temporarily unavailable", Errno.EAGAIN),
            Map.entry("Cannot allocate memory", Errno.ENOMEM),
            Map.entry("Permission denied", Errno.EACCES),
            Map.entry("Device or resource busy", Errno.EBUSY),
            Map.entry("File exists", Errno.EEXIST),
            Map.entry("Invalid cross-device link", Errno.EXDEV),
            Map.entry("No such device", 19),
            Map.entry("Not a directory", Errno.ENOTDIR),
            Map.entry("Is a directory", 21),
            Map.entry("Invalid argument", Errno.EINVAL),
            Map.entry("Too many open files in system", Errno.ENFILE),
            Map.entry("Too many open files", Errno.EMFILE),
            Map.entry("Text file busy", 26),
            Map.entry("File too large", 27),
            Map.entry("No space left on device", Errno.ENOSPC),
            Map.entry("Illegal seek", 29),
            Map.entry("Read-only file system", 30),
            Map.entry("File name too long", Errno.ENAMETOOLONG),
            Map.entry("Too many levels of symbolic links", Errno.ELOOP),
            Map.entry("Value too large for defined data type", 75),
            Map.entry("Operation not supported", Errno.EOPNOTSUPP),
            Map.entry("Stale file handle", 116),
            Map.entry("Disk quota exceeded", 122)).entrySet().stream()
            .sorted(Comparator.comparingInt((Map.Entry<String, Integer> e) -> e.getKey().length()).reversed())
            .toList();

    private JdkErrors() {
    }

    /**
     * What a request that {@code op} would have carried out answers with when the JDK threw {@code e} for
     * {@code target} (an {@code IOException}, or a channel's refusal to read or write): a
     * {@link ClosedChannelException} or a {@link UringException} stays as it is, the rest becomes a
     * {@link UringException}.
     */
    static Exception of(Opcode op, String target, Exception e) {
        if (e instanceof ClosedChannelException || e instanceof UringException) {
            return e;
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
        return text == null ? Errno.EIO : BY_TEXT.stream().filter(t -> text.startsWith(t.getKey()))
                .mapToInt(Map.Entry::getValue).findFirst().orElse(Errno.EIO);
    }
}
