package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
class CqOverflowTest {
    @Test
    void tenThousandNopsThroughAnEightEntryCqLoseNothing() {
        int total = 10_000;
        try (Ring ring = Ring.open(RingOptions.defaults().withEntries(4).withCqEntries(8))) {
            assertEquals(8, ring.cqEntries());
            for (int i = 0; i < total; ) {
                for (int j = 0; j < 4 && i < total; j++, i++) {
                    ring.nextSqe().prepNop().userData(i);
                }
                ring.submit(); // no reaping: everything past 8 overflows into the kernel's list
            }
            BitSet seen = new BitSet(total);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (seen.cardinality() < total && System.nanoTime() < deadline) {
                ring.reap((userData, res, flags) -> {
                    assertEquals(0, res);
                    seen.set((int) userData);
                });
            }
            assertEquals(total, seen.cardinality(), "every NOP completed exactly once");
            RingStats stats = ring.stats();
            assertTrue(stats.overflowFlushes() > 0, "the CQ did overflow: " + stats);
            assertEquals(0, stats.droppedCompletions());
            assertEquals(0, ring.inFlight());
        }
    }
}
