package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.TcpStats;

/** The counters behind one ring's {@link TcpStats}; updated and read only on the ring's thread. */
final class TcpCounters {
    /** The figures of a ring that TCP never used. */
    static final TcpStats NONE = new TcpStats(0, 0, 0, 0, 0);

    private long opened;
    private long closed;
    private long recvBufferShortages;
    private long writesRefused;
    private long acceptBackoffs;

    void connectionOpened() {
        opened++;
    }

    void connectionClosed() {
        closed++;
    }

    void recvBufferShortage() {
        recvBufferShortages++;
    }

    void writeRefused() {
        writesRefused++;
    }

    void acceptBackoff() {
        acceptBackoffs++;
    }

    TcpStats snapshot() {
        return new TcpStats(opened - closed, opened, recvBufferShortages, writesRefused, acceptBackoffs);
    }
}
