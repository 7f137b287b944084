package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
class NopTest {
    @Test
    void batchOfNopsCompletesWithTheirUserDataInOneEnter() {
        try (Ring ring = Ring.open(64, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN)) {
            for (int i = 0; i < 32; i++) {
                ring.nextSqe().prepNop().userData(1000 + i);
            }
            long entersBefore = ring.stats().enters();
            assertEquals(32, ring.submitAndWait(32));
            assertEquals(entersBefore + 1, ring.stats().enters(), "one io_uring_enter for the whole batch");
            Reaped reaped = new Reaped();
            assertEquals(32, ring.reap(reaped));
            Set<Long> seen = new HashSet<>();
            for (Reaped.Cqe c : reaped.cqes) {
                assertEquals(0, c.res());
                seen.add(c.userData());
            }
            assertEquals(32, seen.size());
            assertTrue(seen.contains(1000L) && seen.contains(1031L));
            assertEquals(0, ring.inFlight());
        }
    }

    @Test
    void fullSqHandsOutNoSqeUntilSubmitted() {
        try (Ring ring = Ring.open(8)) {
            for (int i = 0; i < ring.sqEntries(); i++) {
                ring.nextSqe().prepNop().userData(i);
            }
            assertNull(ring.nextSqe(), "the SQ is full");
            assertEquals(0, ring.sqSpaceLeft());
            ring.submit();
            assertEquals(ring.sqEntries(), ring.sqSpaceLeft());
            Reaped.await(ring, 8);
        }
    }

    @Test
    void ringFdIsRegisteredWithTheCreatingThread() {
        try (Ring ring = Ring.open(8)) {
            assertTrue(ring.ringFdRegistered());
            ring.nextSqe().prepNop();
            Reaped.await(ring, 1);
        }
    }
}
