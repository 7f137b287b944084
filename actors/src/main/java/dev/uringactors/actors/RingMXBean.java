package dev.uringactors.actors;

/**
 * One ring's counters over JMX ({@code uring.jmx = on}), named
 * {@code dev.uringactors:type=Ring,system=<actor system>-<n>,ring=<i>}. The attributes are those of
 * {@link RingLoopStats}, read on the ring's thread; a JMX client that reads several at once sees one snapshot.
 */
public interface RingMXBean {
    /** The ring's index in the extension. */
    int getRing();

    /** 1 for the first ring at this index, one more after each restart. */
    int getGeneration();

    /** How the ring thread waits: interrupt, classic or hybrid. */
    String getWaitStrategy();

    /** io_uring_enter calls. */
    long getEnters();

    /** SQEs the kernel consumed. */
    long getSubmitted();

    /** CQEs reaped. */
    long getCompletions();

    /** Times the CQ had overflowed and the kept CQEs were flushed back: should stay near 0. */
    long getOverflowFlushes();

    /** CQEs the kernel lost: should stay 0. */
    long getDroppedCompletions();

    /** Wake-ups other threads made. */
    long getWakeSignals();

    /** Turns of the ring loop: submit, reap, run tasks. */
    long getTurns();

    /** Tasks (actor mailboxes, stream stages) the ring thread ran. */
    long getTasksRun();

    /** Requests submitted and not yet completed. */
    long getRequestsInFlight();

    /** Requests waiting for room in the SQ. */
    int getBacklog();

    /** CPU time the ring's thread has used. */
    long getCpuTimeNanos();

    /** Tasks that ran longer than uring.dispatcher.stuck-task-warning. */
    long getStuckTasks();

    /** TCP connections on the ring now. */
    long getOpenConnections();

    /** Multishot recvs re-armed after running out of provided buffers (ENOBUFS). */
    long getRecvBufferShortages();

    /** Writes refused for a full uring.tcp.max-write-queue. */
    long getWritesRefused();

    /** Times a listener paused accepting after an error (EMFILE, ENFILE...). */
    long getAcceptBackoffs();
}
