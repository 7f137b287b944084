package dev.uringactors.actors.internal.issue;

import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.EventFd;
import dev.uringactors.ring.IoWqWorkers;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.UringException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What every generation of one ring is opened with: its index, SQPOLL group, setup options (and the IOPOLL
 * companion's), the wake-up eventfd, the registered buffers, the io-wq worker cap, and the kinds of registration the kernel refused, each
 * said once for the ring's whole life rather than once per generation.
 */
public final class RingSpec {
    private static final Logger log = LoggerFactory.getLogger(RingSpec.class);

    final int index;
    /** The SQPOLL group the rings open into, or null. */
    final SqPollGroup group;
    final RingOptions options;
    /** The IOPOLL companion's options, or null for none. */
    final RingOptions polledOptions;
    final EventFd wakeFd;
    final UringSettings.FixedBuffers fixedBuffers;
    /** {@code uring.io-wq.max-workers}. */
    final IoWqWorkers ioWqMaxWorkers;
    private final Set<String> refusalsLogged = new HashSet<>();

    /** Ring {@code index} as {@code settings} describe it, in {@code group} (null without SQPOLL). */
    public RingSpec(int index, SqPollGroup group, UringSettings settings, EventFd wakeFd) {
        this.index = index;
        this.group = group;
        this.options = settings.ringOptions(index);
        this.polledOptions = settings.iopoll() == UringSettings.IopollMode.OFF ? null
                : settings.iopollRingOptions(index);
        this.wakeFd = wakeFd;
        this.fixedBuffers = settings.fixedBuffers();
        this.ioWqMaxWorkers = settings.ioWqMaxWorkers();
    }

    /**
     * Registers something with a new ring; where the kernel refuses (locked memory, an old kernel), says so once
     * per kind, with what happens instead, and gives null.
     */
    <T> T registerOrNull(String what, String instead, Supplier<T> register) {
        try {
            return register.get();
        } catch (UringException e) {
            if (refusalsLogged.add(what)) {
                log.warn("ring {}: {} refused: {}; {}", index, what, e.getMessage(), instead);
            }
            return null;
        }
    }
}
