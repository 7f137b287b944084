package dev.uringactors.actors;

import java.util.List;

/**
 * One SQPOLL thread and the rings it serves, over the last sampling interval (1 s).
 *
 * @param group the group's index ({@code uring.sqpoll.groups})
 * @param threadId the SQ thread's id (an {@code iou-sqp-*} thread under /proc/self/task), or -1 while unknown
 * @param cpu the CPU it is pinned to, or -1
 * @param cpuShare the share of one CPU it used: 1.0 is a CPU kept busy, whether working or spinning idle
 * @param workShare the share of its time spent submitting rather than spinning idle (from kernel 6.15), or -1
 * @param wakeupsPerSecond io_uring_enter calls its rings made to wake it from sleep
 * @param rings the rings it serves now
 */
public record SqPollStats(int group, int threadId, int cpu, double cpuShare, double workShare,
                          double wakeupsPerSecond, List<Integer> rings) {
}
