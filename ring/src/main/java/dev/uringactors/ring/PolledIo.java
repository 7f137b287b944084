package dev.uringactors.ring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether a file's block device can complete polled I/O, which an IOPOLL ring needs: the device must have poll
 * queues, which {@code /sys/block/<dev>/queue/io_poll} reports as 1. Without them an IOPOLL read fails with
 * EOPNOTSUPP. Finding out stats files and reads sysfs: it blocks, so not on a ring's thread.
 */
public final class PolledIo {
    /** A device number, as statx(2) gives it ({@code stx_dev_major}, {@code stx_dev_minor}). */
    public record DeviceNumber(int major, int minor) {
        @Override
        public String toString() {
            return major + ":" + minor;
        }
    }

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
            return of(new DeviceNumber((int) (((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL)),
                    (int) ((dev & 0xff) | ((dev >>> 12) & ~0xffL))));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot inspect the block device of " + file, e);
        }
    }

    /** The queue of the device numbered {@code number}, or empty when that is no block device. */
    public static Optional<DeviceQueue> of(DeviceNumber number) {
        try {
            Path sysDev = Path.of("/sys/dev/block/" + number);
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
            throw new UncheckedIOException("cannot inspect block device " + number, e);
        }
    }

    /** True when IOPOLL reads of this file can work. */
    public static boolean supported(Path file) {
        return of(file).map(DeviceQueue::polled).orElse(false);
    }

    /**
     * EOPNOTSUPP for {@code op} of {@code target}, whose device has no poll queues ({@code queue}, or empty for
     * none at all), with the hint that names the sysfs file to check: what an IOPOLL read of it fails with.
     * Built from what is known already, without a look at the file.
     */
    public static UringException unsupported(Opcode op, String target, Optional<DeviceQueue> queue) {
        return new UringException(op.name() + " " + target, Errno.EOPNOTSUPP,
                ErrorHints.noPollQueues(ioPollFile(queue)));
    }

    /** The sysfs file that says whether the device polls, or what stands for it off block devices. */
    static String ioPollFile(Optional<DeviceQueue> queue) {
        return queue.map(q -> q.ioPollFile().toString())
                .orElse("/sys/block/<dev>/queue/io_poll (the file is not on a block device)");
    }
}
