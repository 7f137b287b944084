package dev.uringactors.ring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether a file's block device can complete polled I/O, which an IOPOLL ring needs: the device must have poll
 * queues, which {@code /sys/block/<dev>/queue/io_poll} reports as 1. Without them an IOPOLL read fails with
 * EOPNOTSUPP.
 */
public final class PolledIo {
    /** The block device a file lives on and what its {@code io_poll} file says. */
    public record DeviceQueue(String device, Path ioPollFile, boolean polled) {
    }

    private PolledIo() {
    }

    /** The file's device queue, or empty when the file is not on a block device (tmpfs, overlay, procfs...). */
    public static Optional<DeviceQueue> of(Path file) {
        try {
            long dev = (Long) Files.getAttribute(file, "unix:dev");
            // glibc's gnu_dev_major / gnu_dev_minor encoding of dev_t.
            long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
            long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
            Path sysDev = Path.of("/sys/dev/block/" + major + ":" + minor);
            if (!Files.exists(sysDev)) {
                return Optional.empty();
            }
            Path device = sysDev.toRealPath();
            if (!Files.isDirectory(device.resolve("queue"))) {
                device = device.getParent(); // a partition: the queue belongs to the whole disk
            }
            Path ioPoll = device.resolve("queue/io_poll");
            if (!Files.isReadable(ioPoll)) {
                return Optional.empty();
            }
            boolean polled = Files.readString(ioPoll).trim().equals("1");
            return Optional.of(new DeviceQueue(device.getFileName().toString(), ioPoll, polled));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot inspect the block device of " + file, e);
        }
    }

    /** True when IOPOLL reads of this file can work. */
    public static boolean supported(Path file) {
        return of(file).map(DeviceQueue::polled).orElse(false);
    }
}
