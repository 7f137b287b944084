package dev.uringactors.actors.internal.file;

import dev.uringactors.config.UringSettings.IopollFallback;
import dev.uringactors.config.UringSettings.IopollMode;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.PolledIo;
import dev.uringactors.ring.SetupFlag;
import dev.uringactors.ring.UringException;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Decides, from {@code uring.iopoll} and {@code uring.iopoll-fallback}, whether an O_DIRECT file goes through
 * the IOPOLL ring: only where its block device has poll queues. Elsewhere "auto" and the "plain" fallback use
 * the plain ring, and the "fail" fallback refuses the open with EOPNOTSUPP and a hint naming the sysfs file.
 */
public final class DirectIoRouter {
    private final IopollMode mode;
    private final IopollFallback fallback;

    DirectIoRouter(IopollMode mode, IopollFallback fallback) {
        this.mode = mode;
        this.fallback = fallback;
    }

    boolean polled(Path path) {
        if (mode == IopollMode.OFF) {
            return false;
        }
        // A file about to be created lives on its directory's device.
        Path existing = Files.exists(path) ? path : path.toAbsolutePath().getParent();
        if (existing != null && PolledIo.supported(existing)) {
            return true;
        }
        if (mode == IopollMode.AUTO || fallback == IopollFallback.PLAIN) {
            return false;
        }
        throw UringException.ofResult(Opcode.OPENAT, -Errno.EOPNOTSUPP, path.toString(), SetupFlag.IOPOLL.bit);
    }
}
