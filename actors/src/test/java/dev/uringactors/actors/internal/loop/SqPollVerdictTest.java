package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.SqPollStats;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When the SQPOLL supervisor says an SQ thread does not pay, and the setting it names. */
class SqPollVerdictTest {
    private static SqPollStats stats(double cpu, double work, double wakeups, int rings) {
        return new SqPollStats(0, 123, -1, cpu, work, wakeups, rings == 1 ? List.of(0) : List.of(0, 1));
    }

    @Test
    void aSaturatedThreadServingSeveralRingsNamesTheGroups() {
        assertTrue(SqPollSupervisor.whyItDoesNotPay(stats(1.0, 0.97, 0, 2)).contains("uring.sqpoll.groups"));
        assertNull(SqPollSupervisor.whyItDoesNotPay(stats(1.0, 0.97, 0, 1)), "one ring: nothing to spread");
    }

    @Test
    void aThreadThatSpinsWithoutWorkNamesTheIdleTime() {
        assertTrue(SqPollSupervisor.whyItDoesNotPay(stats(0.9, 0.01, 0, 2)).contains("uring.sqpoll.idle"));
        assertNull(SqPollSupervisor.whyItDoesNotPay(stats(0.9, -1, 0, 2)), "no working share (before 6.15)");
    }

    @Test
    void aThreadWokenTooOftenNamesTheIdleTime() {
        assertTrue(SqPollSupervisor.whyItDoesNotPay(stats(0.2, 0.1, 5000, 2)).contains("Raise uring.sqpoll.idle"));
    }

    @Test
    void aThreadThatWorksAndSleepsPays() {
        assertNull(SqPollSupervisor.whyItDoesNotPay(stats(0.6, 0.5, 10, 2)));
        assertNull(SqPollSupervisor.whyItDoesNotPay(stats(0.0, -1, 0, 2)));
    }
}
