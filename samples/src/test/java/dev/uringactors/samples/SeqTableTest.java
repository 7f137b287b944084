package dev.uringactors.samples;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The requests-out table against a HashMap, under the churn a pipelining connection makes and worse. */
class SeqTableTest {
    @Test
    void keepsWhatAMapKeepsUnderRandomChurn() {
        Random random = new Random(42);
        SeqTable<Long> table = new SeqTable<>();
        Map<Long, Long> model = new HashMap<>();
        List<Long> out = new ArrayList<>();
        long next = 0;
        for (int step = 0; step < 1_000_000; step++) {
            if (out.isEmpty() || random.nextInt(100) < 52) { // grows slowly, then empties in bursts below
                long key = random.nextInt(10) == 0 ? random.nextLong() : next++; // a few far from the rest
                if (!model.containsKey(key)) {
                    table.put(key, key);
                    model.put(key, key);
                    out.add(key);
                }
            } else {
                long key = out.remove(random.nextInt(out.size()));
                assertEquals(model.remove(key), table.remove(key));
            }
            if (step % 100_000 == 99_999) {
                while (out.size() > 10) { // a burst answered
                    long key = out.remove(out.size() - 1);
                    assertEquals(model.remove(key), table.remove(key));
                }
            }
            assertEquals(model.size(), table.size());
        }
        for (Map.Entry<Long, Long> e : model.entrySet()) {
            assertEquals(e.getValue(), table.get(e.getKey()));
        }
        assertNull(table.get(next + 1));
        assertNull(table.remove(next + 1));
    }

    @Test
    void emptiedAfterABurstItIsAsNew() {
        SeqTable<String> table = new SeqTable<>();
        for (long key = 0; key < 100_000; key++) {
            table.put(key, "v");
        }
        for (long key = 0; key < 100_000; key++) {
            assertEquals("v", table.remove(key));
        }
        assertEquals(0, table.size());
        table.put(Long.MIN_VALUE, "min");
        table.put(Long.MAX_VALUE, "max");
        table.put(-1, "minus one");
        assertEquals("min", table.get(Long.MIN_VALUE));
        assertEquals("max", table.get(Long.MAX_VALUE));
        assertEquals("minus one", table.remove(-1));
        assertEquals(2, table.size());
    }

    @Test
    void aKeyFiledTwiceOrANullIsRefused() {
        SeqTable<String> table = new SeqTable<>();
        table.put(7, "first");
        assertThrows(IllegalStateException.class, () -> table.put(7, "second"));
        assertThrows(IllegalArgumentException.class, () -> table.put(8, null));
        assertEquals("first", table.get(7));
        assertEquals(1, table.size());
    }
}
