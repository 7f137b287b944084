package dev.uringactors.actors.internal.file;

import dev.uringactors.ring.PolledIo.DeviceNumber;
import dev.uringactors.ring.PolledIo.DeviceQueue;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Whether each block device has poll queues, learnt once per device and never on a ring's thread: the lookup
 * (sysfs) blocks, so it runs on an executor for blocking calls, and every later open on that device reads the
 * answer from memory. Opens that ask while the lookup runs wait for the same one. One for all of a system's rings.
 */
final class DeviceQueues {
    private final ConcurrentHashMap<DeviceNumber, CompletableFuture<Optional<DeviceQueue>>> queues =
            new ConcurrentHashMap<>();
    private final Function<DeviceNumber, Optional<DeviceQueue>> lookup;
    private final Executor blocking;

    /** {@code lookup} ({@code PolledIo::of}) runs on {@code blocking}; empty: not a block device. */
    DeviceQueues(Function<DeviceNumber, Optional<DeviceQueue>> lookup, Executor blocking) {
        this.lookup = lookup;
        this.blocking = blocking;
    }

    /** The queue of {@code device}: complete already when it is known, else once the lookup has run. */
    CompletableFuture<Optional<DeviceQueue>> of(DeviceNumber device) {
        // A lookup that failed (a sysfs read, say) is not kept: this open tries again.
        queues.computeIfPresent(device, (number, known) -> known.isCompletedExceptionally() ? null : known);
        return queues.computeIfAbsent(device, number -> CompletableFuture.supplyAsync(() -> lookup.apply(number),
                blocking));
    }
}
