package dev.uringactors.actors.tcp;

/**
 * One bind's accepting, summed over its rings, since it was bound.
 *
 * @param accepted connections accepted
 * @param acceptErrors accepts that ended with an error other than a cancellation
 * @param rearms accept requests issued again after one ended (a multishot accept ends now and then)
 * @param descriptorPauses pauses of {@code uring.tcp.accept-backoff} because the process or system had no file
 *     descriptor left (EMFILE, ENFILE)
 * @param restarts restarts of a ring's accepting after a failure, with back-off; the listening socket and its
 *     backlog stay meanwhile
 * @param resetBeforeAccepted connections whose peer reset them while they waited in the backlog: closed at once
 */
public record ListenerStats(long accepted, long acceptErrors, long rearms, long descriptorPauses, long restarts,
                            long resetBeforeAccepted) {
}
