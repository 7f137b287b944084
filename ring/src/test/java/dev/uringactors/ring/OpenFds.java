package dev.uringactors.ring;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** This process's open file descriptors, from /proc/self/fd. */
public final class OpenFds {
    private OpenFds() {
    }

    public static long all() {
        return count(fd -> true);
    }

    /** Only sockets (a link that reads {@code socket:[inode]}). */
    public static long sockets() {
        return count(fd -> target(fd).startsWith("socket:"));
    }

    /**
     * Only the TCP sockets bound to local {@code port}: a server's listener and the connections it accepted, whatever
     * other sockets the JVM or an earlier test opens or closes meanwhile. (Not its clients' ends: one that was reset
     * has left the kernel's tables while its fd is still open.)
     */
    public static long socketsOnPort(int port) {
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
        return count(fd -> inodes.contains(target(fd)));
    }

    /** The port of an address as /proc/net/tcp writes it: hex address, colon, hex port. */
    private static int portOf(String address) {
        return Integer.parseInt(address.substring(address.indexOf(':') + 1), 16);
    }

    /** Only the files in or beneath {@code dir}: what a test's own files hold, whatever else the JVM opens. */
    public static long under(Path dir) {
        return count(isUnder(dir));
    }

    private static Predicate<Path> isUnder(Path dir) {
        String prefix = realPath(dir) + "/";
        return fd -> target(fd).startsWith(prefix);
    }

    private static long count(Predicate<Path> which) {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(which).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path realPath(Path dir) {
        try {
            return dir.toRealPath(); // the links name the real path
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every open fd with what it is, for a failure message: which one was left open says why. */
    public static String describe() {
        return describe(fd -> true);
    }

    /** The open fds on files in or beneath {@code dir}, with what they are. */
    public static String describeUnder(Path dir) {
        return describe(isUnder(dir));
    }

    private static String describe(Predicate<Path> which) {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(which).map(fd -> fd.getFileName() + " -> " + target(fd)).sorted()
                    .collect(Collectors.joining(", "));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException e) {
            return ""; // closed between the listing and the look
        }
    }

    /** Waits up to 30 s for {@code count} to come down to {@code limit}; returns the last count. */
    public static long awaitAtMost(long limit, LongSupplier count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long now;
        while ((now = count.getAsLong()) > limit && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return now;
    }

    /**
     * Asserts that {@code count} comes back to at most {@code before} within 30 s. Fewer is fine: an fd the JVM or an
     * earlier test held may close meanwhile; the listing says what is open if it does not.
     */
    public static void assertBackTo(long before, LongSupplier count, String what) {
        long after = awaitAtMost(before, count);
        assertTrue(after <= before, () -> what + ": " + after + " open, " + before + " before; " + describe());
    }
}
