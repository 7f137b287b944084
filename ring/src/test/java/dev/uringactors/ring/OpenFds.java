package dev.uringactors.ring;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A process's open file descriptors, from /proc/PID/fd, as the exact set of fd number and link target. A leak check
 * compares sets, not counts: with counts, a descriptor the JVM or an earlier test closes meanwhile hides one the test
 * leaked.
 */
public final class OpenFds {
    private static final Path SELF = fdDir(ProcessHandle.current().pid());

    static {
        // The JDK opens a socket for good on its first NIO channel (the pre-close end of a socketpair, put over an
        // fd closed under a blocked thread): opened here, before any snapshot, so that it does not count as new.
        try {
            FileChannel.open(Path.of("/dev/null")).close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private OpenFds() {
    }

    /** Which descriptors to look at, by what their link names. */
    public static final class Kind {
        private static final Kind ALL = new Kind(() -> target -> true);
        /** A link that reads {@code socket:[inode]}. */
        public static final Kind SOCKETS = prefix("socket:");
        /** Either end of a pipe, {@code pipe:[inode]}: what splicing holds. */
        public static final Kind PIPES = prefix("pipe:");
        public static final Kind IO_URING = new Kind(() -> "anon_inode:[io_uring]"::equals);

        /** Looked up again for each listing: a kind such as a port's sockets changes as connections come and go. */
        private final Supplier<Predicate<String>> targets;

        private Kind(Supplier<Predicate<String>> targets) {
            this.targets = targets;
        }

        private static Kind prefix(String prefix) {
            return new Kind(() -> target -> target.startsWith(prefix));
        }

        /** The files in or beneath {@code dir}: what a test's own files hold, whatever else the JVM opens. */
        public static Kind under(Path dir) {
            return prefix(realPath(dir) + "/");
        }

        /**
         * The TCP sockets bound to local {@code port}: a server's listener and the connections it accepted, not its
         * clients' ends. (Nor a connection that was reset: it has left the kernel's tables while its fd is open.)
         */
        public static Kind socketsOnPort(int port) {
            return new Kind(() -> inodesOnPort(port)::contains);
        }
    }

    /**
     * The descriptors of {@code kinds} (any of them) open in this process now. Returns the snapshot, to assert later
     * that none was opened after it and left open.
     */
    public static Snapshot snapshot(Kind... kinds) {
        return new Snapshot(SELF, list(SELF, kinds), kinds);
    }

    /** The descriptors of {@code kinds} open in {@code process} now, from its fd table. */
    public static Snapshot snapshotOf(Process process, Kind... kinds) {
        Path fdDir = fdDir(process.pid());
        return new Snapshot(fdDir, list(fdDir, kinds), kinds);
    }

    /** Asserts that within 30 s no descriptor of {@code kind} is open at all in this process. */
    public static void assertNoneOpen(Kind kind, String what) {
        new Snapshot(SELF, Map.of(), kind).assertNoneNew(what);
    }

    private static Path fdDir(long pid) {
        return Path.of("/proc", String.valueOf(pid), "fd");
    }

    /** The descriptors of some kinds open in a process at one time: number to link target. */
    public static final class Snapshot {
        private final Path fdDir;
        private final Kind[] kinds;
        private final SortedMap<Integer, String> fds;

        private Snapshot(Path fdDir, Map<Integer, String> fds, Kind... kinds) {
            this.fdDir = fdDir;
            this.kinds = kinds.clone();
            this.fds = Collections.unmodifiableSortedMap(new TreeMap<>(fds));
        }

        /** Number to link target, by number. */
        public SortedMap<Integer, String> fds() {
            return fds;
        }

        /**
         * Those of its kinds open now that were not at the snapshot: a number open then with another target now
         * (closed, then taken again) is new.
         */
        private SortedMap<Integer, String> opened() {
            SortedMap<Integer, String> now = list(fdDir, kinds);
            now.entrySet().removeIf(fd -> fd.getValue().equals(fds.get(fd.getKey())));
            return now;
        }

        /**
         * Asserts that within 30 s every descriptor of its kinds opened since the snapshot is closed; those that
         * were open at the snapshot may have closed or not. The message names the ones left and lists all.
         */
        public void assertNoneNew(String what) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            SortedMap<Integer, String> opened;
            while (!(opened = opened()).isEmpty() && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // a poll: each listing reads /proc
            }
            SortedMap<Integer, String> left = opened;
            assertTrue(left.isEmpty(), () -> what + ": opened and still open " + left + "; at the snapshot " + fds
                    + "; every fd now " + list(fdDir, Kind.ALL));
        }

        @Override
        public String toString() {
            return fds.toString();
        }
    }

    private static SortedMap<Integer, String> list(Path fdDir, Kind... kinds) {
        List<Predicate<String>> which = Arrays.stream(kinds).map(k -> k.targets.get()).toList();
        SortedMap<Integer, String> fds = new TreeMap<>();
        try (Stream<Path> links = Files.list(fdDir)) {
            links.forEach(fd -> {
                String target = target(fd);
                // Not the listing's own fd on the directory: its number may change from one listing to the next.
                if (target != null && !target.equals(fdDir.toString())
                        && which.stream().anyMatch(w -> w.test(target))) {
                    fds.put(Integer.valueOf(fd.getFileName().toString()), target);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fds;
    }

    /** The link's target, or null where the fd closed between the listing and the look. */
    private static String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException e) {
            return null;
        }
    }

    private static Set<String> inodesOnPort(int port) {
        Set<String> inodes = new HashSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try (Stream<String> lines = Files.lines(Path.of(table))) {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
                lines.skip(1).map(line -> line.trim().split("\\s+"))
                        .filter(f -> portOf(f[1]) == port)
                        .forEach(f -> inodes.add("socket:[" + f[9] + "]"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return inodes;
    }

    /** The port of an address as /proc/net/tcp writes it: hex address, colon, hex port. */
    private static int portOf(String address) {
        return Integer.parseInt(address.substring(address.indexOf(':') + 1), 16);
    }

    private static Path realPath(Path dir) {
        try {
            return dir.toRealPath(); // the links name the real path
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
