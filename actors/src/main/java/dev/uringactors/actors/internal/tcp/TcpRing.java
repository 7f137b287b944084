package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.internal.issue.RingGeneration;
import dev.uringactors.actors.internal.issue.RingResource;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.BufferRing;

/**
 * What TCP keeps per ring, made when a ring first carries a socket: its counters, and the provided buffers that
 * the multishot receives of its connections share, registered with each generation of the ring on first use.
 * Used only on the ring's thread.
 */
final class TcpRing implements RingResource {
    private static final int RECV_GROUP = 0;

    private final TcpCounters counters = new TcpCounters();
    private final int recvBufferCount;
    private final int recvBufferSize;
    /** The generation open now, or null once the ring is closed. */
    private RingGeneration generation;
    /** The generation's provided buffers, or null until a receive needs them. */
    private BufferRing recvBuffers;

    private TcpRing(RingLoop loop) {
        UringSettings.Tcp tcp = loop.settings().tcp();
        this.recvBufferCount = tcp.recvBuffers();
        this.recvBufferSize = tcp.recvBufferSize();
        loop.issuer().attach(this);
        loop.reportTcp(counters::snapshot);
    }

    /** TCP's state on {@code loop}'s ring; call it on that ring's thread. */
    static TcpRing of(RingLoop loop) {
        return loop.attachment(TcpRing.class, TcpRing::new);
    }

    TcpCounters counters() {
        return counters;
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
