package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Opcode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Finds where a path beneath a directory leads as openat2 with RESOLVE_BENEATH does, which the JDK cannot ask
 * the kernel for: one component at a time, each looked at without following it; a symlink's target is walked in
 * its place, and a {@code ..} steps back to the component before it. An absolute path or symlink target, or a
 * {@code ..} above the directory, is refused with EXDEV, as the kernel refuses it; more than 40 symlinks, or a
 * final symlink with NOFOLLOW_LINKS, with ELOOP. The path found has no symlink in it at the time it is looked at.
 */
final class BeneathPath {
    /** The kernel's limit on the symlinks of one lookup (MAXSYMLINKS). */
    private static final int MAX_SYMLINKS = 40;

    private BeneathPath() {
    }

    /**
     * The path that {@code relative} names beneath {@code directory}; its last component may not exist yet (an
     * open that creates it). {@code shown} names the lookup in errors, as the ring's OPENAT2 does.
     */
    static Path resolve(Path directory, Path relative, boolean noFollowLast, String shown) throws IOException {
        if (relative.isAbsolute()) {
            throw JdkErrors.refusal(Opcode.OPENAT2, shown, Errno.EXDEV);
        }
        if (relative.toString().isEmpty()) {
            throw JdkErrors.refusal(Opcode.OPENAT2, shown, Errno.ENOENT); // openat2 without AT_EMPTY_PATH
        }
        Deque<String> todo = names(relative);
        List<String> done = new ArrayList<>();
        int symlinks = 0;
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                if (done.isEmpty()) {
                    throw JdkErrors.refusal(Opcode.OPENAT2, shown, Errno.EXDEV);
                }
                done.remove(done.size() - 1); // every step taken is a directory, never a symlink: its parent
                continue;
            }
            Path step = join(directory, done).resolve(name);
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(step, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                if (todo.isEmpty()) { // the last one: the open says whether it may be created
                    done.add(name);
                    break;
                }
                throw e;
            }
            if (attributes.isSymbolicLink()) {
                if (todo.isEmpty() && noFollowLast) {
                    throw JdkErrors.refusal(Opcode.OPENAT2, shown, Errno.ELOOP); // O_NOFOLLOW
                }
                if (++symlinks > MAX_SYMLINKS) {
                    throw JdkErrors.refusal(Opcode.OPENAT2, shown, Errno.ELOOP);
                }
                Path target = Files.readSymbolicLink(step);
                if (target.isAbsolute()) {
                    throw JdkErrors.refusal(Opcode.OPENAT2, shown, Errno.EXDEV);
                }
                names(target).descendingIterator().forEachRemaining(todo::push);
            } else if (!todo.isEmpty() && !attributes.isDirectory()) {
                throw JdkErrors.refusal(Opcode.OPENAT2, shown, Errno.ENOTDIR);
            } else {
                done.add(name);
            }
        }
        return join(directory, done);
    }

    private static Deque<String> names(Path path) {
        Deque<String> names = new ArrayDeque<>();
        path.forEach(name -> names.add(name.toString()));
        return names;
    }

    private static Path join(Path directory, List<String> names) {
        Path p = directory;
        for (String name : names) {
            p = p.resolve(name);
        }
        return p;
    }
}
