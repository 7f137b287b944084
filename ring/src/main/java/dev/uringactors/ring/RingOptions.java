package dev.uringactors.ring;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * How to set up a {@link Ring}. Immutable; {@code with*} returns a changed copy. CQSIZE, SQ_AFF and ATTACH_WQ
 * follow from {@code cqEntries}, {@code sqThreadCpu} and {@code attachWqFd} and need not be listed in flags.
 *
 * @param entries SQ size: 1..32768, rounded up to a power of two by the kernel
 * @param cqEntries CQ size, or 0 for the kernel's default (twice the SQ)
 * @param flags setup flags
 * @param sqThreadCpu CPU for the SQPOLL thread, or -1 for none
 * @param sqThreadIdle how long the SQPOLL thread spins before it sleeps; zero means the kernel default (1 s)
 * @param attachWqFd a ring whose io-wq (and SQ thread) to share, or -1
 * @param registerRingFd register the ring fd with the creating (or enabling) thread, which makes each
 *     io_uring_enter from that thread cheaper
 * @param closeTimeout how long {@link Ring#close()} waits for cancelled requests to complete
 */
public record RingOptions(int entries, int cqEntries, Set<SetupFlag> flags, int sqThreadCpu, Duration sqThreadIdle,
                          int attachWqFd, boolean registerRingFd, Duration closeTimeout) {
    /** Checks the options: entries at least 1, the others in their ranges. */
    public RingOptions {
        if (entries < 1) {
            throw new IllegalArgumentException("entries must be at least 1: " + entries);
        }
        if (cqEntries < 0) {
            throw new IllegalArgumentException("cqEntries must be 0 (default) or positive: " + cqEntries);
        }
        if (sqThreadCpu < -1) {
            throw new IllegalArgumentException("sqThreadCpu must be -1 (none) or a CPU number: " + sqThreadCpu);
        }
        if (sqThreadIdle.isNegative() || closeTimeout.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative");
        }
        flags = Collections.unmodifiableSet(flags.isEmpty() ? EnumSet.noneOf(SetupFlag.class) : EnumSet.copyOf(flags));
    }

    /** 256 entries, no flags, a registered ring fd, 5 s to drain at close. */
    public static RingOptions defaults() {
        return new RingOptions(256, 0, Set.of(), -1, Duration.ZERO, -1, true, Duration.ofSeconds(5));
    }

    /** These options with {@code n} submission entries. */
    public RingOptions withEntries(int n) {
        return new RingOptions(n, cqEntries, flags, sqThreadCpu, sqThreadIdle, attachWqFd, registerRingFd,
                closeTimeout);
    }

    /** These options with {@code n} completion entries (0: the kernel's default, twice the SQ). */
    public RingOptions withCqEntries(int n) {
        return new RingOptions(entries, n, flags, sqThreadCpu, sqThreadIdle, attachWqFd, registerRingFd,
                closeTimeout);
    }

    /** These options with exactly these setup flags. */
    public RingOptions withFlags(SetupFlag... setupFlags) {
        Set<SetupFlag> set = EnumSet.noneOf(SetupFlag.class);
        Collections.addAll(set, setupFlags);
        return new RingOptions(entries, cqEntries, set, sqThreadCpu, sqThreadIdle, attachWqFd, registerRingFd,
                closeTimeout);
    }

    /** These options with the SQPOLL thread pinned to {@code cpu} (-1: not pinned). */
    public RingOptions withSqThreadCpu(int cpu) {
        return new RingOptions(entries, cqEntries, flags, cpu, sqThreadIdle, attachWqFd, registerRingFd,
                closeTimeout);
    }

    /** These options with this SQPOLL idle time. */
    public RingOptions withSqThreadIdle(Duration idle) {
        return new RingOptions(entries, cqEntries, flags, sqThreadCpu, idle, attachWqFd, registerRingFd,
                closeTimeout);
    }

    /** These options sharing the io-wq (and SQ thread) of the ring with fd {@code fd} (-1: none). */
    public RingOptions withAttachWqFd(int fd) {
        return new RingOptions(entries, cqEntries, flags, sqThreadCpu, sqThreadIdle, fd, registerRingFd,
                closeTimeout);
    }

    /** These options with the ring fd registered, or not. */
    public RingOptions withRegisterRingFd(boolean register) {
        return new RingOptions(entries, cqEntries, flags, sqThreadCpu, sqThreadIdle, attachWqFd, register,
                closeTimeout);
    }

    /** These options with this close timeout. */
    public RingOptions withCloseTimeout(Duration timeout) {
        return new RingOptions(entries, cqEntries, flags, sqThreadCpu, sqThreadIdle, attachWqFd, registerRingFd,
                timeout);
    }

    /** The {@code io_uring_params.flags} word, with the flags implied by the other fields. */
    public int setupMask() {
        int mask = SetupFlag.mask(flags);
        if (cqEntries > 0) {
            mask |= SetupFlag.CQSIZE.bit;
        }
        if (sqThreadCpu >= 0) {
            mask |= SetupFlag.SQ_AFF.bit;
        }
        if (attachWqFd >= 0) {
            mask |= SetupFlag.ATTACH_WQ.bit;
        }
        return mask;
    }
}
