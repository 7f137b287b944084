package dev.uringactors.ring;

import org.opentest4j.TestAbortedException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The hardware a test may need and a machine may lack: the only skips that
 * {@code -During.test.require-io-uring=true} leaves skips ({@link SkipsFailWhenRequired}). Every such test is
 * gated here, so this list is where to read what a green run on a machine without it did not try.
 */
public enum Hardware {
    /** The temp dir on a block device (not tmpfs or overlay), to open files with O_DIRECT on its queue. */
    BLOCK_DEVICE("the temp dir on a block device"),
    /** A block device under the temp dir with poll queues (io_poll = 1), for IOPOLL rings. */
    POLL_QUEUES("a block device with poll queues (io_poll = 1) under the temp dir"),
    /** A block device under the temp dir without poll queues, where IOPOLL is refused and a fallback is seen. */
    NO_POLL_QUEUES("a block device without poll queues under the temp dir");

    private final String what;

    Hardware(String what) {
        this.what = what;
    }

    /** Skips the test, saying what it needs and {@code detail}, unless {@code present}. */
    public void assume(boolean present, String detail) {
        if (!present) {
            throw new Missing("needs " + what + ": " + detail);
        }
    }

    /**
     * The sysfs {@code io_poll} file of the block device that holds {@code file}, found with stat(1) and
     * {@code /sys/dev/block} (a partition's queue is its disk's); empty off block devices (tmpfs, overlay).
     */
    public static Optional<Path> ioPollFileOf(Path file) {
        Path device = Path.of("/sys/dev/block", stat("%Hd:%Ld", file));
        if (!Files.exists(device)) {
            return Optional.empty();
        }
        try {
            device = device.toRealPath();
        } catch (IOException e) {
            throw new IllegalStateException("cannot follow " + device, e);
        }
        for (Path queue : new Path[] {device.resolve("queue"), device.getParent().resolve("queue")}) {
            if (Files.isRegularFile(queue.resolve("io_poll"))) {
                return Optional.of(queue.resolve("io_poll"));
            }
        }
        return Optional.empty();
    }

    /** Whether the device of {@code ioPollFile} has poll queues (the file reads 1). */
    public static boolean polled(Path ioPollFile) {
        try {
            return Files.readString(ioPollFile).strip().equals("1");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + ioPollFile, e);
        }
    }

    private static String stat(String format, Path file) {
        try {
            Process p = new ProcessBuilder("stat", "-c", format, file.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("stat -c " + format + " " + file + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("stat(1) could not run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running stat(1)", e);
        }
    }

    /** A skip for want of hardware: allowed under the switch. */
    static final class Missing extends TestAbortedException {
        private static final long serialVersionUID = 1L;

        Missing(String message) {
            super(message);
        }
    }
}
