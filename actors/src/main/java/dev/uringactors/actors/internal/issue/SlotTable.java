package dev.uringactors.actors.internal.issue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Requests in flight by user_data, and what the issuer keeps for each: the native memory lent to it, when it went
 * into the SQ (for a polling wait's forecast), and whether its completion failed. The low 32 bits of a user_data
 * are a slot index, the next 24 the slot's generation, so a completion finds its request with an array access,
 * and a stale user_data (a slot since reused) finds nothing; the 6 bits above them say which step of a chain an
 * SQE is (0 for a lone op). The top two bits are the ring's, and the issuer's reserved values have a slot index
 * no table reaches.
 */
final class SlotTable {
    private static final int GENERATION_MASK = 0x00ff_ffff;
    private static final int STEP_SHIFT = 56;
    /** Steps a chain may have: what the step bits can tell apart. */
    static final int MAX_STEPS = 64;
    private static final int INITIAL = 64;

    private RingOp[] ops = new RingOp[INITIAL];
    private BufferLease[] leases = new BufferLease[INITIAL];
    /** When the op went into the SQ, if a polling wait expects its completion; else -1. */
    private long[] submittedAt = new long[INITIAL];
    /** Its completion threw: it was answered with the exception, and what the kernel still posts is drained. */
    private boolean[] failed = new boolean[INITIAL];
    private int[] generations = new int[INITIAL];
    private int[] free = new int[INITIAL];
    private int freeCount;
    private int size;

    SlotTable() {
        Arrays.fill(submittedAt, -1);
        addFree(0, INITIAL);
    }

    /** Takes a slot for {@code op} and the memory lent to it (or null); returns its user_data. */
    long put(RingOp op, BufferLease lease) {
        if (freeCount == 0) {
            grow();
        }
        int index = free[--freeCount];
        ops[index] = op;
        leases[index] = lease;
        size++;
        return ((long) generations[index] << 32) | index;
    }

    /** The user_data of step {@code step} of the op with {@code userData}. */
    static long ofStep(long userData, int step) {
        return userData | ((long) step << STEP_SHIFT);
    }

    /** Which step of its op's chain a completion's user_data names. */
    static int step(long userData) {
        return (int) (userData >>> STEP_SHIFT) & (MAX_STEPS - 1);
    }

    RingOp get(long userData) {
        int index = live(userData);
        return index < 0 ? null : ops[index];
    }

    /** Frees the slot, and gives back the memory lent to its op: the kernel is done with it. */
    void remove(long userData) {
        int index = live(userData);
        if (index < 0) {
            return;
        }
        if (leases[index] != null) {
            leases[index].giveBack();
        }
        clear(index);
        generations[index] = (generations[index] + 1) & GENERATION_MASK;
        free[freeCount++] = index;
        size--;
    }

    void submittedAt(long userData, long nanos) {
        submittedAt[live(userData)] = nanos;
    }

    /** When the op went into the SQ; -1 if it is not expected, or its slot is no longer its own. */
    long submittedAt(long userData) {
        int index = live(userData);
        return index < 0 ? -1 : submittedAt[index];
    }

    void markCompletionFailed(long userData) {
        failed[live(userData)] = true;
    }

    boolean completionFailed(long userData) {
        int index = live(userData);
        return index >= 0 && failed[index];
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

    /**
     * Forgets every op without giving back its memory: the kernel may still write into it after a drain that
     * timed out, so it is leaked on purpose. Their slots are reused, under new generations.
     */
    void abandonAll() {
        for (int index = 0; index < ops.length; index++) {
            if (ops[index] != null) {
                clear(index);
                generations[index] = (generations[index] + 1) & GENERATION_MASK;
                free[freeCount++] = index;
            }
        }
        size = 0;
    }

    private int live(long userData) {
        int index = (int) userData;
        return index < 0 || index >= ops.length || ops[index] == null
                || generations[index] != ((int) (userData >>> 32) & GENERATION_MASK) ? -1 : index;
    }

    private void clear(int index) {
        ops[index] = null;
        leases[index] = null;
        submittedAt[index] = -1;
        failed[index] = false;
    }

    private void grow() {
        int old = ops.length;
        ops = Arrays.copyOf(ops, old * 2);
        leases = Arrays.copyOf(leases, old * 2);
        submittedAt = Arrays.copyOf(submittedAt, old * 2);
        Arrays.fill(submittedAt, old, old * 2, -1);
        failed = Arrays.copyOf(failed, old * 2);
        generations = Arrays.copyOf(generations, old * 2);
        free = Arrays.copyOf(free, old * 2);
        addFree(old, old * 2);
    }

    /** Indexes [from, to) go on the free stack, the lowest on top. */
    private void addFree(int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            free[freeCount++] = i;
        }
    }
}
