package dev.uringactors.ring.wait;

import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.SetupFlag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
class WaitStrategyTest {
    /** Runs {@code rounds} timeouts of {@code delay}, one at a time, waiting with the strategy. */
    private static void timeouts(Ring ring, WaitStrategy strategy, Duration delay, int rounds) {
        try (NativeBuffer ts = NativeBuffer.timespec(delay)) {
            int[] done = {0};
            for (int i = 0; i < rounds; i++) {
                ring.nextSqe().prepTimeout(ts.address(), 0, 0).userData(i);
                long deadline = System.nanoTime() + 5_000_000_000L;
                int before = done[0];
                while (done[0] == before) {
                    assertTrue(System.nanoTime() < deadline, "no completion within 5 s");
                    strategy.submitAndWait(ring);
                    ring.reap((ud, res, flags) -> done[0]++);
                }
            }
            assertEquals(rounds, done[0]);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"interrupt", "classic", "hybrid"})
    void eachStrategyCompletesWorkOnADeferTaskrunRing(String name) {
        try (Ring ring = Ring.open(64, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN)) {
            WaitStrategy strategy = WaitStrategy.named(name);
            assertEquals(name, strategy.name());
            timeouts(ring, strategy, Duration.ofMillis(1), 20);
            for (int i = 0; i < 64; i++) {
                ring.nextSqe().prepNop().userData(i);
            }
            int reaped = 0;
            while (reaped < 64) {
                strategy.submitAndWait(ring);
                reaped += ring.reap((ud, res, flags) -> { });
            }
            assertEquals(0, ring.inFlight());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"interrupt", "classic", "hybrid"})
    void nothingInFlightReturnsInsteadOfWaitingForever(String name) {
        try (Ring ring = Ring.open(8, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN)) {
            assertEquals(0, WaitStrategy.named(name).submitAndWait(ring));
        }
    }

    @Test
    void spinningStopsWhenOtherWorkArrives() {
        try (Ring ring = Ring.open(8); NativeBuffer ts = NativeBuffer.timespec(Duration.ofHours(1))) {
            ring.nextSqe().prepTimeout(ts.address(), 0, 0);
            int[] checks = {0};
            assertEquals(0, new ClassicPollWait().submitAndWait(ring, () -> ++checks[0] > 100));
            assertTrue(checks[0] > 100);
        }
    }

    @Test
    void hybridSleepFollowsTheObservedLatencyUpAndDown() {
        try (Ring ring = Ring.open(8, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN)) {
            HybridPollWait hybrid = new HybridPollWait(200_000, 10_000, 8);
            assertEquals(-1, hybrid.estimateNanos());
            timeouts(ring, hybrid, Duration.ofMillis(2), 16);
            long shortEstimate = hybrid.estimateNanos();
            // The clock starts a little after the kernel's timer does (the submit is in between): a bit under is fine.
            // No upper bounds: on a loaded machine every completion comes late, by as much as 10 ms.
            assertTrue(shortEstimate >= 1_500_000, "at least about 2 ms: " + shortEstimate);
            assertTrue(hybrid.sleeps() > 0, "slept before polling");

            timeouts(ring, hybrid, Duration.ofMillis(20), 16);
            long longEstimate = hybrid.estimateNanos();
            assertTrue(longEstimate >= 15_000_000 && longEstimate > shortEstimate,
                    "up to about 20 ms: " + longEstimate + " after " + shortEstimate);

            timeouts(ring, hybrid, Duration.ofMillis(2), 16);
            assertTrue(hybrid.estimateNanos() < longEstimate, "back down: " + hybrid.estimateNanos() + " after "
                    + longEstimate);
        }
    }

    @Test
    void unknownStrategyNameIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WaitStrategy.named("spin"));
        assertTrue(e.getMessage().contains("interrupt, classic or hybrid"));
    }
}
