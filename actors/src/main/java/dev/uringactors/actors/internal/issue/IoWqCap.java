package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.IoWqWorkers;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.UringException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps the io-wq workers behind every ring an issuer opens, restarts included ({@code uring.io-wq.max-workers}):
 * a kernel worker runs each SPLICE and each request that cannot be polled, and one that waits on a peer is a
 * thread for as long as it waits. Where the kernel refuses (before 5.15), it says so once and the kernel's
 * defaults stay.
 */
final class IoWqCap {
    private static final Logger log = LoggerFactory.getLogger(IoWqCap.class);

    private final int ringIndex;
    private final IoWqWorkers max;
    private boolean refusalLogged;

    IoWqCap(int ringIndex, IoWqWorkers max) {
        this.ringIndex = ringIndex;
        this.max = max;
    }

    /**
     * Applies the cap to a ring just opened. Call it on the thread that submits to the ring: the io-wq is that
     * thread's (or with SQPOLL the SQ thread's), and a single-issuer ring takes registrations from it alone.
     */
    void apply(Ring ring) {
        if (max.bounded() == 0 && max.unbounded() == 0) {
            return; // the kernel's defaults: nothing to change
        }
        try {
            ring.registerIoWqMaxWorkers(max.bounded(), max.unbounded());
        } catch (UringException e) {
            if (!refusalLogged) {
                refusalLogged = true;
                log.warn("ring {}: io-wq worker cap (uring.io-wq.max-workers) refused: {}; the kernel's defaults "
                        + "stay", ringIndex, e.getMessage());
            }
        }
    }
}
