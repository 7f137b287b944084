package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.loop.Rings;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Which ring each connection of one bind lives on. On a shared listening socket the kernel wakes one ring's accept
 * per connection, and the same one again and again (the accepts wait exclusively, in a fixed order): a burst would
 * land on one ring. So a shared bind deals each accepted connection to the open ring that holds the fewest of its
 * connections, taking turns among equals; the connection then lives there alone. With a socket per ring
 * (SO_REUSEPORT) the kernel has spread them already, by hash: each stays where it was accepted. Read and written by
 * the bind's listeners and its connections, on their rings' threads.
 */
final class ConnectionSpread {
    private final Rings rings;
    private final boolean dealt;
    /** Per ring: this bind's connections open there. */
    private final AtomicIntegerArray open;
    /** Per ring: 1 while it takes connections, 0 once it is closed for good. */
    private final AtomicIntegerArray taking;
    private final AtomicInteger turn = new AtomicInteger();

    /** {@code dealt}: hand connections out over the rings; else keep each on the ring that accepted it. */
    ConnectionSpread(Rings rings, boolean dealt) {
        this.rings = rings;
        this.dealt = dealt;
        this.open = new AtomicIntegerArray(rings.count());
        this.taking = new AtomicIntegerArray(rings.count());
        for (int i = 0; i < rings.count(); i++) {
            taking.set(i, 1);
        }
    }

    Rings rings() {
        return rings;
    }

    /**
     * The place for a connection that ring {@code accepting} accepted; counted as open on its ring until it is
     * released.
     */
    Placement place(int accepting) {
        int ring = dealt ? fewest(accepting) : accepting;
        open.incrementAndGet(ring);
        return new Placement(ring);
    }

    /**
     * Where one connection lives. Released once, by whichever comes first: the connection closing its socket (so
     * that a connection closed counts as gone at once) or its actor's end (for one that never got that far).
     */
    final class Placement {
        private final int ring;
        private final AtomicBoolean released = new AtomicBoolean();

        private Placement(int ring) {
            this.ring = ring;
        }

        int ring() {
            return ring;
        }

        void release() {
            if (released.compareAndSet(false, true)) {
                open.decrementAndGet(ring);
            }
        }
    }

    /** Ring {@code ring} is closed for good: no connection is placed there any more. */
    void ringClosed(int ring) {
        taking.set(ring, 0);
    }

    /** The open ring with the fewest connections, starting the search one further each time, or else {@code fallback}. */
    private int fewest(int fallback) {
        int count = open.length();
        int start = Math.floorMod(turn.getAndIncrement(), count);
        int best = -1;
        int bestOpen = Integer.MAX_VALUE;
        for (int k = 0; k < count; k++) {
            int ring = (start + k) % count;
            int connections = open.get(ring);
            if (taking.get(ring) == 1 && connections < bestOpen) {
                best = ring;
                bestOpen = connections;
            }
        }
        return best < 0 ? fallback : best;
    }
}
