package dev.uringactors.ring;

/**
 * What a ring has done since it was set up.
 *
 * @param enters io_uring_enter calls
 * @param submitted SQEs the kernel consumed
 * @param completions CQEs reaped
 * @param overflowFlushes times the CQ had overflowed and the kept CQEs were flushed back into it
 * @param droppedCompletions CQEs the kernel lost (its overflow counter); should stay 0
 * @param sqWakeups io_uring_enter calls made only to wake a sleeping SQPOLL thread (0 without SQPOLL)
 */
public record RingStats(long enters, long submitted, long completions, long overflowFlushes,
                        long droppedCompletions, long sqWakeups) {
}
