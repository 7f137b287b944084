package dev.uringactors.ring.wait;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The estimator and the cost-aware sleep, on a fake clock: plain code, no ring. */
class HybridSleepTest {
    /** A clock that only moves when the strategy sleeps, and sleeps that always run {@code overshoot} late. */
    private static final class FakeTime {
        long now = 1_000_000_000L;
        final long overshoot;
        long lastRequest;

        FakeTime(long overshoot) {
            this.overshoot = overshoot;
        }

        void sleep(long nanos) {
            lastRequest = nanos;
            now += nanos + overshoot;
        }
    }

    @Test
    void theOversleepCorrectionConvergesSoThatWakeUpsLandOnTime() {
        FakeTime time = new FakeTime(30_000);
        HybridPollWait hybrid = new HybridPollWait(200_000, 1_000, 16, () -> time.now, time::sleep);
        long lateness = 0;
        for (int i = 0; i < 100; i++) {
            long target = time.now + 100_000;
            assertTrue(hybrid.sleepUntil(target));
            lateness = time.now - target;
        }
        assertTrue(Math.abs(hybrid.oversleepNanos() - 30_000) < 1_000, "learnt: " + hybrid.oversleepNanos());
        assertTrue(Math.abs(lateness) < 1_000, "wakes on time: " + lateness + " ns late");
        assertTrue(Math.abs(time.lastRequest - 70_000) < 1_000, "asks for less: " + time.lastRequest);
    }

    @Test
    void aSleepShorterThanWhatSleepingCostsIsSkippedThenProbedNowAndThen() {
        FakeTime time = new FakeTime(50_000);
        HybridPollWait hybrid = new HybridPollWait(200_000, 1_000, 16, () -> time.now, time::sleep);
        for (int i = 0; i < 20; i++) {
            hybrid.sleepUntil(time.now + 100_000); // learns that a sleep runs 50 us late
        }
        long sleeps = hybrid.sleeps();
        int skipped = 0;
        while (!hybrid.sleepUntil(time.now + 20_000)) { // 20 us ahead: a sleep would wake 30 us too late
            skipped++;
        }
        assertEquals(HybridPollWait.REPROBE_EVERY - 1, skipped, "skipped until the probe");
        assertEquals(sleeps + 1, hybrid.sleeps());
        assertFalse(hybrid.sleepUntil(time.now + 500), "never for less than the minimum sleep");
    }

    @Test
    void theEstimateFollowsLatencyDownAndUp() {
        LatencyEstimate estimate = new LatencyEstimate(4);
        assertEquals(-1, estimate.nanos());
        estimate.sample(60_000);
        assertEquals(60_000, estimate.nanos(), "the first sample sets it");
        for (long sample : new long[] {50_000, 40_000, 45_000, 70_000}) {
            estimate.sample(sample);
        }
        assertEquals(40_000, estimate.nanos(), "the shortest of the window");
        for (int i = 0; i < 4; i++) {
            estimate.sample(200_000); // the device got slower
        }
        assertEquals(200_000, estimate.nanos(), "follows it up");
        for (int i = 0; i < 4; i++) {
            estimate.sample(10_000);
        }
        assertEquals(10_000, estimate.nanos(), "and down");
    }
}
