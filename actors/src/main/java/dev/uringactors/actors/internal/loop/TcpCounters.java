package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.TcpStats;

/** The counters behind one ring's {@link TcpStats}; updated and read only on the ring's thread. */
public final class TcpCounters {
    private long opened;
    private long closed;
    private long recvBufferShortages;
    private long writesRefused;
    private long acceptBackoffs;

    public void connectionOpened() {
        opened++;
    }

    public void connectionClosed() {
        closed++;
    }

    public void recvBufferShortage() {
        recvBufferShortages++;
    }

    public void writeRefused() {
        writesRefused++;
    }

    public void acceptBackoff() {
        acceptBackoffs++;
    }

    TcpStats snapshot() {
        return new TcpStats(opened - closed, opened, recvBufferShortages, writesRefused, acceptBackoffs);
    }
}
