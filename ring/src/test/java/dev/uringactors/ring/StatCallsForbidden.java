package dev.uringactors.ring;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Forbids the calling thread, for the rest of its life, the system calls that look up a file's metadata by its
 * path: the stat family (stat, fstat, lstat, newfstatat, statx) and the access family (access, faccessat,
 * faccessat2), all but a statx of an open descriptor (AT_EMPTY_PATH), which looks nothing up. A seccomp filter
 * fails them with EPERM. Installed on a ring's thread, it proves that nothing that thread runs looks up a path to
 * stat it: Java's {@code Files} checks fail there, while io_uring's STATX still works (a kernel worker runs it, and
 * no system call of the thread's is involved), and so does the stat of a file the thread has just opened. Other
 * threads are not affected, but a thread that a filtered thread starts inherits the filter: start the threads of a
 * pool that it hands work to first ({@link #startThreads}), or that pool's stats fail too.
 *
 * <p>A class loaded afterwards from a directory of the class path would be looked up with stat on that thread,
 * and not be found, and the JVM remembers such a failure for good: so the project's classes in directories (this
 * build's {@code target/classes} and {@code target/test-classes}) are all loaded first. Classes in jars are found
 * without a stat once their jar is open, as the jars of everything the thread ran before are.
 */
public final class StatCallsForbidden {
    /** x86_64 numbers: stat, fstat, lstat, access, newfstatat, faccessat, statx, faccessat2. */
    private static final int[] FORBIDDEN = {4, 5, 6, 21, 262, 269, 332, 439};
    /** statx with AT_EMPTY_PATH in its flags (its third argument): the stat of the descriptor itself. */
    private static final SeccompFilter.Unless OF_A_DESCRIPTOR = new SeccompFilter.Unless(332, 2,
            OpFlags.AT_EMPTY_PATH);

    private StatCallsForbidden() {
    }

    /**
     * Installs the filter on the calling thread, a descriptor's statx let through; the test is skipped where
     * seccomp filters cannot be had.
     */
    public static void onThisThread() {
        install(OF_A_DESCRIPTOR);
        if (statx("", OpFlags.AT_EMPTY_PATH) != 0) {
            throw new AssertionError("a statx of a descriptor fails on this thread: " + Errno.name(LibC.negErrno()));
        }
    }

    /** As {@link #onThisThread()}, and a descriptor's statx is forbidden too: the thread stats nothing at all. */
    public static void allOnThisThread() {
        install(null);
        if (statx("", OpFlags.AT_EMPTY_PATH) != -1 || LibC.negErrno() != -Errno.EPERM) {
            throw new AssertionError("a statx of a descriptor still works on this thread");
        }
    }

    private static void install(SeccompFilter.Unless unless) {
        loadClassesOfDirectories();
        String refused = SeccompFilter.refuseOnThisThread(Errno.EPERM, unless, FORBIDDEN);
        assumeTrue(refused == null, refused);
        int res = statx("/", 0);
        if (res != -1 || LibC.negErrno() != -Errno.EPERM) {
            throw new AssertionError("statx of a path still works on this thread: " + res);
        }
    }

    /** statx(2) of {@code path} from the working directory. */
    private static int statx(String path, int flags) {
        try (NativeBuffer name = NativeBuffer.ofString(path)) {
            return LibC.statx(OpFlags.AT_FDCWD, name.address(), flags, OpFlags.STATX_BASIC_STATS, new byte[256]);
        }
    }

    /**
     * Makes {@code executor} start {@code count} threads now, from the calling thread: {@code count} tasks that
     * all wait until all run. For a pool of that many threads, which then starts no more.
     */
    public static void startThreads(Executor executor, int count) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            executor.execute(() -> {
                running.countDown();
                try {
                    running.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        if (!running.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the executor did not run " + count + " tasks at once");
        }
    }

    /** Loads (without initialising) every class under {@code dev/} in the class path's directories. */
    private static void loadClassesOfDirectories() {
        ClassLoader loader = StatCallsForbidden.class.getClassLoader();
        try {
            for (URL url : Collections.list(loader.getResources("dev"))) {
                if (url.getProtocol().equals("file")) {
                    Path root = Path.of(url.toURI()).getParent();
                    try (Stream<Path> files = Files.walk(root.resolve("dev"))) {
                        files.map(root::relativize).map(Path::toString).filter(name -> name.endsWith(".class"))
                                .map(name -> name.substring(0, name.length() - 6).replace('/', '.'))
                                .forEach(name -> load(loader, name));
                    }
                }
            }
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException("cannot list the class path's directories", e);
        }
    }

    private static void load(ClassLoader loader, String name) {
        try {
            Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            // a class that cannot load at all cannot be needed by the thread either
        }
    }
}
