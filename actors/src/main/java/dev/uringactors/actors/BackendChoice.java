package dev.uringactors.actors;

import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Probe;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.UringException;

import java.util.BitSet;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The backend that {@code uring.backend} leads to, and why. {@link #of} decides it for a start; {@link #probe}
 * says what {@code auto} would choose here, with the settings in force, without starting anything.
 *
 * @param backend the backend that runs
 * @param reason why, in words naming the setting, e.g. "uring.backend = auto: io_uring_setup: EPERM (...)"
 */
public record BackendChoice(Backend backend, String reason) {
    /** The ops the rings' file and TCP actors submit; a kernel without one of them cannot run them. */
    private static final Set<Opcode> OPS_USED = EnumSet.of(Opcode.READ, Opcode.WRITE, Opcode.FSYNC,
            Opcode.OPENAT, Opcode.CLOSE, Opcode.STATX, Opcode.ACCEPT, Opcode.CONNECT, Opcode.RECV, Opcode.SEND,
            Opcode.SHUTDOWN, Opcode.POLL_ADD, Opcode.ASYNC_CANCEL);

    /**
     * The backend for {@code settings}: {@code jdk} and {@code io-uring} as set (io-uring then fails at start where
     * the kernel refuses it), {@code auto} as {@link #probe} finds.
     */
    public static BackendChoice of(UringSettings settings) {
        return switch (settings.backend()) {
            case JDK -> new BackendChoice(Backend.JDK, "uring.backend = jdk");
            case IO_URING -> new BackendChoice(Backend.IO_URING, "uring.backend = io-uring");
            case AUTO -> probe(settings);
        };
    }

    /**
     * What {@code uring.backend = auto} chooses with {@code settings}: io_uring if a ring opens with the configured
     * setup flags and sizes and the kernel has the ops the library submits, else the JDK backend with the kernel's
     * refusal as the reason. Opens and closes one ring on the calling thread.
     */
    public static BackendChoice probe(UringSettings settings) {
        String refusal = refusal(settings);
        return refusal == null
                ? new BackendChoice(Backend.IO_URING, "uring.backend = auto: io_uring accepts the configured ring "
                        + "(setup flags " + settings.ringOptions(0).flags() + ") and has every op the library uses")
                : new BackendChoice(Backend.JDK, "uring.backend = auto: " + refusal);
    }

    /** Why io_uring cannot run the rings as configured, or null if it can. */
    private static String refusal(UringSettings settings) {
        try (Ring ring = Ring.open(settings.ringOptions(0))) {
            BitSet ops = ring.probeOps();
            Set<Opcode> missing = EnumSet.noneOf(Opcode.class);
            OPS_USED.stream().filter(op -> !ops.get(op.code())).forEach(missing::add);
            return missing.isEmpty() ? null : "this kernel (Linux " + Probe.kernelRelease()
                    + ") lacks io_uring ops the library uses: "
                    + missing.stream().map(Enum::name).collect(Collectors.joining(", "));
        } catch (UringException e) {
            return e.getMessage();
        } catch (LinkageError e) {
            return "the native calls cannot be made here (" + e + ")";
        }
    }
}
