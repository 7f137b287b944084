package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.TcpStats;
import dev.uringactors.actors.internal.issue.RingGeneration;
import dev.uringactors.actors.internal.issue.RingResource;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.BufferRing;
import dev.uringactors.ring.Feature;
import dev.uringactors.ring.Probe;
import org.slf4j.Logger;

/**
 * What TCP keeps per ring, made when a ring first carries a socket: its counters, the provided buffers that the
 * multishot receives of its connections share, registered with each generation of the ring on first use, and the
 * limit of those receives.
 * Used only on the ring's thread.
 */
public final class TcpRing implements RingResource {
    private static final int RECV_GROUP = 0;

    private final TcpCounters counters = new TcpCounters();
    private final int recvBufferCount;
    private final int recvBufferSize;
    /** The bytes one arming of a receive takes ({@code uring.tcp.read-ahead}), 0 for no limit. */
    private int recvLimit;
    /** The generation open now, or null once the ring is closed. */
    private RingGeneration generation;
    /** The generation's provided buffers, or null until a receive needs them. */
    private BufferRing recvBuffers;

    private TcpRing(RingLoop loop) {
        UringSettings.Tcp tcp = loop.settings().tcp();
        this.recvBufferCount = tcp.recvBuffers();
        this.recvBufferSize = tcp.recvBufferSize();
        this.recvLimit = Math.max(tcp.readAhead(), 0);
        loop.issuer().attach(this);
    }

    /** TCP's state on {@code loop}'s ring; call it on that ring's thread. */
    static TcpRing of(RingLoop loop) {
        return loop.attachment(TcpRing.class, TcpRing::new);
    }

    /** What TCP met on {@code loop}'s ring, none if it never used it; call it on that ring's thread. */
    public static TcpStats figures(RingLoop loop) {
        TcpRing tcp = loop.attachmentOrNull(TcpRing.class);
        return tcp == null ? TcpCounters.NONE : tcp.counters.snapshot();
    }

    TcpCounters counters() {
        return counters;
    }

    /** The bytes after which a connection's receive ends, to be armed again if reading is still wanted; 0: none. */
    int recvLimit() {
        return recvLimit;
    }

    /**
     * The kernel refused a receive with a limit (EINVAL: before Linux 6.17 the limit's field is one that must be
     * 0): this ring's receives go on without one, as they did before 6.17, said once.
     */
    void recvLimitRefused(Logger log) {
        if (recvLimit > 0) {
            recvLimit = 0;
            log.info("the kernel (Linux {}) refused a multishot receive with a limit (EINVAL; Linux 6.17 takes "
                    + "one): this ring reads without uring.tcp.read-ahead, so a connection whose handler suspends "
                    + "reading may read up to its socket's buffer ahead of it", Probe.kernelRelease());
        }
    }

    /**
     * Whether a file piece's fill and first drain go as one chain: the fill posts nothing when it succeeds, which
     * needs CQE_SKIP_SUCCESS (Linux 5.17); without it they go one after another, as two round trips.
     */
    boolean linksFilePieces() {
        return generation != null && generation.ring().has(Feature.CQE_SKIP);
    }

    /** A generation of the ring is open now: it is neither closed for good nor between a failure and its restart. */
    boolean isOpen() {
        return generation != null;
    }

    /** The provided buffers of the ring's generation open now, registered on first use. */
    BufferRing recvBuffers() {
        if (generation == null) {
            throw new IllegalStateException("the ring is closed");
        }
        if (recvBuffers == null) {
            recvBuffers = BufferRing.register(generation.ring(), RECV_GROUP, recvBufferCount, recvBufferSize);
        }
        return recvBuffers;
    }

    @Override
    public void attach(RingGeneration generation) {
        this.generation = generation;
    }

    @Override
    public void detach(boolean drained) {
        if (recvBuffers != null && drained) { // else the kernel may still write into them: leaked on purpose
            recvBuffers.close();
        }
        recvBuffers = null;
        generation = null;
    }
}
