package dev.uringactors.actors;

/**
 * What one ring's TCP connections and listeners have met.
 *
 * @param openConnections connections on the ring now (announced, fd not yet closed)
 * @param connectionsOpened connections announced on the ring so far
 * @param recvBufferShortages times a connection's multishot recv stopped for lack of provided buffers (ENOBUFS)
 *                            and was re-armed: many mean {@code uring.tcp.recv-buffers} is too small
 * @param writesRefused writes refused because {@code uring.tcp.max-write-queue} was full
 * @param acceptBackoffs times a listener paused accepting after an error (EMFILE, ENFILE...)
 */
public record TcpStats(long openConnections, long connectionsOpened, long recvBufferShortages, long writesRefused,
                       long acceptBackoffs) {
}
