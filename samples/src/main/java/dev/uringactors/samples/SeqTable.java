package dev.uringactors.samples;

/**
 * Values by a long key, without a box or an entry object per key: a connection files every request it sends
 * under its sequence number, and most live for a microsecond. Open addressing with linear probing; a removal
 * moves the keys after it back, so that no tombstones build up under a steady churn.
 */
final class SeqTable<V> {
    private static final int FIRST_SIZE = 64;

    private long[] keys = new long[FIRST_SIZE];
    private Object[] values = new Object[FIRST_SIZE];
    private int size;

    int size() {
        return size;
    }

    /** Files {@code value} under {@code key}, which must not be filed already. */
    void put(long key, V value) {
        if (value == null) {
            throw new IllegalArgumentException("a null value would read as no entry");
        }
        if (2 * (size + 1) > keys.length) { // at most half full: probes stay short
            grow();
        }
        int i = slot(key);
        while (values[i] != null) {
            if (keys[i] == key) {
                throw new IllegalStateException("sequence number " + key + " filed twice");
            }
            i = next(i);
        }
        keys[i] = key;
        values[i] = value;
        size++;
    }

    /** The value filed under {@code key}, or null. */
    @SuppressWarnings("unchecked")
    V get(long key) {
        for (int i = slot(key); values[i] != null; i = next(i)) {
            if (keys[i] == key) {
                return (V) values[i];
            }
        }
        return null;
    }

    /** Takes out and gives the value filed under {@code key}, or null if there is none. */
    @SuppressWarnings("unchecked")
    V remove(long key) {
        int i = slot(key);
        while (values[i] != null && keys[i] != key) {
            i = next(i);
        }
        V removed = (V) values[i];
        if (removed == null) {
            return null;
        }
        size--;
        // Back-shift: each key after the hole that may move into it does, so that every key stays reachable
        // from its own slot without crossing an empty one.
        int hole = i;
        for (int j = next(hole); values[j] != null; j = next(j)) {
            if (((j - slot(keys[j])) & mask()) >= ((j - hole) & mask())) { // its slot is not after the hole
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        values[hole] = null;
        if (size == 0 && keys.length > 16 * FIRST_SIZE) { // the room a burst took goes back
            keys = new long[FIRST_SIZE];
            values = new Object[FIRST_SIZE];
        }
        return removed;
    }

    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Object[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                @SuppressWarnings("unchecked") V value = (V) oldValues[i];
                put(oldKeys[i], value);
            }
        }
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L; // an odd factor: consecutive numbers take distinct slots
        return (int) (h ^ (h >>> 32)) & mask();
    }

    private int next(int i) {
        return (i + 1) & mask();
    }

    private int mask() {
        return keys.length - 1;
    }
}
