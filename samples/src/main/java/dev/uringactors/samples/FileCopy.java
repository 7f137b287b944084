package dev.uringactors.samples;

import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.SetupFlag;
import dev.uringactors.ring.UringException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Copies a file through one SINGLE_ISSUER | DEFER_TASKRUN ring owned by this thread: the checks (STATX), opening,
 * the blocks ({@link BlockCopy}), syncing and closing all go through it.
 *
 * <p>It never damages what it was given: only a regular file is copied, never onto itself (the same device and
 * inode, through links or not), and the copy is written to a new file beside the target, which takes the
 * target's name only once its SHA-256 matches the source's. That rename replaces only a regular file: a target
 * that is a symbolic link is followed, and the file it leads to is replaced (the link stays a link); a device, a
 * FIFO, a socket, a directory or a link that leads nowhere is refused. A failure leaves the target as it was
 * and names the operation, the path the user gave and the errno. Holes in a sparse source are filled in the
 * copy (it reads zeros there).
 */
final class FileCopy {
    /** A copy that was made: its size and the SHA-256 that source and copy share. */
    record Result(long bytes, String sha256) {
    }

    private final RingCalls calls;
    private final BlockCopy blocks;
    private final Path source;
    private final Path target;
    /** How errors name the new file beside the target: by the target the user gave. */
    private final String copyName;

    private FileCopy(RingCalls calls, BlockCopy blocks, Path source, Path target, String copyName) {
        this.calls = calls;
        this.blocks = blocks;
        this.source = source;
        this.target = target;
        this.copyName = copyName;
    }

    /**
     * Copies {@code source} to {@code target}. Throws {@link CopyRefusedException} for what it will not copy,
     * {@link UringException} (naming the operation) or {@link IOException} for what failed; the target is then
     * as it was.
     */
    static Result copy(Path source, Path target) throws IOException {
        RingOptions options = RingOptions.defaults().withEntries(2 * BlockCopy.QUEUE_DEPTH)
                .withFlags(SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
        String copyName = "the copy beside " + target;
        // The ring closes first: it waits for every request, so the kernel is done with the buffers before
        // they are freed, even when the copy failed with writes in flight.
        long bufferBytes = (long) BlockCopy.QUEUE_DEPTH * BlockCopy.BLOCK;
        try (NativeBuffer buffers = NativeBuffer.allocateAligned(bufferBytes, 4096); Ring ring = Ring.open(options)) {
            return new FileCopy(new RingCalls(ring), new BlockCopy(ring, buffers, source.toString(), copyName),
                    source, target, copyName).run();
        }
    }

    private Result run() throws IOException {
        PathStat from = calls.stat(source, source.toString());
        if (!from.isRegularFile()) {
            throw new CopyRefusedException(source + " is " + from.kind() + ", not a regular file: copy copies "
                    + "only regular files");
        }
        Path destination = followLinks(target);
        Optional<PathStat> replaced = replaceable(destination);
        if (replaced.isPresent() && replaced.get().isSameFile(from)) {
            throw new CopyRefusedException(source + " and " + target + " are the same file");
        }
        Path copy = destination.resolveSibling("." + destination.getFileName() + "."
                + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".copying");
        int out = calls.open(copy, OpFlags.O_WRONLY | OpFlags.O_CREAT | OpFlags.O_EXCL | OpFlags.O_CLOEXEC, 0600,
                copyName);
        try {
            long bytes;
            try {
                JavaFileCall.run("chmod " + copyName, () -> Files.setPosixFilePermissions(copy,
                        permissions(from.mode())));
                bytes = copyInto(out);
                calls.fsync(out, copyName);
            } finally {
                calls.close(out, copyName);
            }
            String sha256 = sha256(source, source.toString());
            String copySha256 = sha256(copy, copyName);
            if (!sha256.equals(copySha256)) {
                throw new CopyRefusedException("the copy's SHA-256 " + copySha256 + " differs from the source's "
                        + sha256 + " (did the source change while it was copied?)");
            }
            replaceable(destination); // again: what is there now is what the rename replaces
            JavaFileCall.run("rename " + copyName + " onto " + target, () -> Files.move(copy, destination,
                    StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE));
            return new Result(bytes, sha256);
        } finally {
            JavaFileCall.run("remove " + copyName, () -> Files.deleteIfExists(copy)); // gone once it is the target
        }
    }

    /** The target, or where the symbolic link it is leads; a link that leads nowhere is refused. */
    private Path followLinks(Path path) throws IOException {
        Optional<PathStat> itself = calls.statIfExists(path, false, path.toString());
        if (itself.isEmpty() || !itself.get().isSymbolicLink()) {
            return path.toAbsolutePath();
        }
        if (calls.statIfExists(path, true, path.toString()).isEmpty()) {
            throw new CopyRefusedException(path + " is a symbolic link that leads nowhere: copy does not write "
                    + "through it (copy onto what it should lead to, or remove it)");
        }
        return JavaFileCall.run("realpath " + path, path::toRealPath);
    }

    /** What {@code destination} is now, if anything: a regular file, or else it is refused. */
    private Optional<PathStat> replaceable(Path destination) {
        Optional<PathStat> there = calls.statIfExists(destination, false, target.toString());
        if (there.isPresent() && !there.get().isRegularFile()) {
            String what = destination.equals(target.toAbsolutePath()) ? target + " is "
                    : target + " leads to " + destination + ", ";
            throw new CopyRefusedException(what + there.get().kind() + ", not a regular file: copy replaces only "
                    + "a regular file, or makes one (to write into a device or a FIFO, use cat or dd)");
        }
        return there;
    }

    private long copyInto(int out) {
        int in = calls.open(source, OpFlags.O_RDONLY | OpFlags.O_CLOEXEC, 0, source.toString());
        try {
            return blocks.copy(in, out, calls.stat(in, source.toString()).size());
        } finally {
            calls.close(in, source.toString());
        }
    }

    /** The permission bits of a mode (set-id and sticky bits are not copied). */
    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission p : PosixFilePermission.values()) { // owner read first, as in the mode's bits
            if ((mode & (0400 >> p.ordinal())) != 0) {
                permissions.add(p);
            }
        }
        return permissions;
    }

    private static String sha256(Path file, String named) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        return JavaFileCall.run("read " + named, () -> {
            try (InputStream in = Files.newInputStream(file)) {
                byte[] chunk = new byte[1 << 16];
                for (int n; (n = in.read(chunk)) > 0; ) {
                    digest.update(chunk, 0, n);
                }
            }
            return HexFormat.of().formatHex(digest.digest());
        });
    }
}
