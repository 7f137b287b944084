package dev.uringactors.actors.internal.issue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Requests in flight by user_data: the low 32 bits are a slot index, the high bits the slot's generation, so a
 * completion finds its request with an array access, and a stale user_data (a slot since reused) finds nothing.
 * Generations stay below 2^30, so user_data never collides with the issuer's reserved (negative or huge) values.
 */
final class SlotTable {
    private static final int GENERATION_MASK = 0x3fff_ffff;

    private RingOp[] ops = new RingOp[64];
    private int[] generations = new int[64];
    private int[] free = new int[64];
    private int freeCount;
    private int size;

    SlotTable() {
        for (int i = 0; i < free.length; i++) {
            free[i] = free.length - 1 - i;
        }
        freeCount = free.length;
    }

    long put(RingOp op) {
        if (freeCount == 0) {
            grow();
        }
        int index = free[--freeCount];
        ops[index] = op;
        size++;
        return ((long) generations[index] << 32) | index;
    }

    RingOp get(long userData) {
        int index = (int) userData;
        if (index < 0 || index >= ops.length || generations[index] != (int) (userData >>> 32)) {
            return null;
        }
        return ops[index];
    }

    void remove(long userData) {
        int index = (int) userData;
        if (get(userData) == null) {
            return;
        }
        ops[index] = null;
        generations[index] = (generations[index] + 1) & GENERATION_MASK;
        free[freeCount++] = index;
        size--;
    }

    int size() {
        return size;
    }

    List<RingOp> all() {
        List<RingOp> list = new ArrayList<>(size);
        for (RingOp op : ops) {
            if (op != null) {
                list.add(op);
            }
        }
        return list;
    }

    private void grow() {
        int old = ops.length;
        ops = Arrays.copyOf(ops, old * 2);
        generations = Arrays.copyOf(generations, old * 2);
        free = Arrays.copyOf(free, old * 2);
        for (int i = old * 2 - 1; i >= old; i--) {
            free[freeCount++] = i;
        }
    }
}
