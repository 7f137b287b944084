package dev.uringactors.ring;

import java.util.EnumSet;
import java.util.Set;

/** {@code IORING_FEAT_*} bits the kernel reports in {@code io_uring_params.features} at setup. */
public enum Feature {
    SINGLE_MMAP(1, "5.4"),
    NODROP(1 << 1, "5.5"),
    SUBMIT_STABLE(1 << 2, "5.5"),
    RW_CUR_POS(1 << 3, "5.6"),
    CUR_PERSONALITY(1 << 4, "5.6"),
    FAST_POLL(1 << 5, "5.7"),
    POLL_32BITS(1 << 6, "5.9"),
    SQPOLL_NONFIXED(1 << 7, "5.11"),
    EXT_ARG(1 << 8, "5.11"),
    NATIVE_WORKERS(1 << 9, "5.12"),
    RSRC_TAGS(1 << 10, "5.13"),
    CQE_SKIP(1 << 11, "5.17"),
    LINKED_FILE(1 << 12, "5.17"),
    REG_REG_RING(1 << 13, "6.3"),
    RECVSEND_BUNDLE(1 << 14, "6.10"),
    MIN_TIMEOUT(1 << 15, "6.12"),
    RW_ATTR(1 << 16, "6.14"),
    NO_IOWAIT(1 << 17, "6.15");

    public final int bit;
    public final String sinceKernel;

    Feature(int bit, String sinceKernel) {
        this.bit = bit;
        this.sinceKernel = sinceKernel;
    }

    static Set<Feature> of(int mask) {
        Set<Feature> set = EnumSet.noneOf(Feature.class);
        for (Feature f : values()) {
            if ((mask & f.bit) != 0) {
                set.add(f);
            }
        }
        return set;
    }
}
