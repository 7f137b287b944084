package dev.uringactors.actors.internal.file;

import dev.uringactors.config.UringSettings.IopollFallback;
import dev.uringactors.config.UringSettings.IopollMode;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.PolledIo;
import dev.uringactors.ring.PolledIo.DeviceNumber;
import dev.uringactors.ring.PolledIo.DeviceQueue;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Decides, from {@code uring.iopoll} and {@code uring.iopoll-fallback}, whether an O_DIRECT file goes through
 * the IOPOLL ring: only where its block device has poll queues. Elsewhere "auto" and the "plain" fallback use
 * the plain ring, and the "fail" fallback refuses the open with EOPNOTSUPP and a hint naming the sysfs file.
 * What each device has is learnt off the ring, once ({@link DeviceQueues}).
 */
final class DirectIoRouter {
    private final IopollMode mode;
    private final IopollFallback fallback;
    private final DeviceQueues devices;

    DirectIoRouter(IopollMode mode, IopollFallback fallback, DeviceQueues devices) {
        this.mode = mode;
        this.fallback = fallback;
        this.devices = devices;
    }

    /** Whether an O_DIRECT file may go through the IOPOLL ring, so that its device must be looked at. */
    boolean routes() {
        return mode != IopollMode.OFF;
    }

    /** The poll queues of {@code device}: known already, or once learnt off the ring. */
    CompletableFuture<Optional<DeviceQueue>> queueOf(DeviceNumber device) {
        return devices.of(device);
    }

    /**
     * Whether {@code file}, on a device with {@code queue} (empty: no block device), goes through the IOPOLL
     * ring; throws the refusal where it cannot and the fallback is "fail".
     */
    boolean polled(Optional<DeviceQueue> queue, Path file) {
        if (queue.map(DeviceQueue::polled).orElse(false)) {
            return true;
        }
        if (mode == IopollMode.AUTO || fallback == IopollFallback.PLAIN) {
            return false;
        }
        throw PolledIo.unsupported(Opcode.OPENAT, file.toString(), queue);
    }
}
