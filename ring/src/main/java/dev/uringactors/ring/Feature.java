package dev.uringactors.ring;

import java.util.EnumSet;
import java.util.Set;

/** {@code IORING_FEAT_*} bits the kernel reports in {@code io_uring_params.features} at setup. */
public enum Feature {
    /** One mmap covers both queues. */
    SINGLE_MMAP(1, "5.4"),
    /** Completions are not dropped when the CQ is full; they wait in the kernel. */
    NODROP(1 << 1, "5.5"),
    /** Data an SQE points to may change once it is submitted. */
    SUBMIT_STABLE(1 << 2, "5.5"),
    /** Offset -1 reads and writes at the file position. */
    RW_CUR_POS(1 << 3, "5.6"),
    /** Requests run with the submitting task's credentials. */
    CUR_PERSONALITY(1 << 4, "5.6"),
    /** Sockets not ready are polled internally instead of blocking a worker. */
    FAST_POLL(1 << 5, "5.7"),
    /** POLL_ADD takes 32 bits of events. */
    POLL_32BITS(1 << 6, "5.9"),
    /** SQPOLL works with plain fds, not only registered ones. */
    SQPOLL_NONFIXED(1 << 7, "5.11"),
    /** io_uring_enter takes a timeout and a signal mask in one argument. */
    EXT_ARG(1 << 8, "5.11"),
    /** Workers are threads of the submitting process. */
    NATIVE_WORKERS(1 << 9, "5.12"),
    /** Registered buffers and files can carry tags. */
    RSRC_TAGS(1 << 10, "5.13"),
    /** A successful request can skip its completion. */
    CQE_SKIP(1 << 11, "5.17"),
    /** A linked request resolves its file when it runs, not when it is submitted. */
    LINKED_FILE(1 << 12, "5.17"),
    /** The ring fd can be registered, without an io_uring_enter flag. */
    REG_REG_RING(1 << 13, "6.3"),
    /** A receive or send can take several buffers at once. */
    RECVSEND_BUNDLE(1 << 14, "6.10"),
    /** A wait can have a minimum time before it returns with fewer completions. */
    MIN_TIMEOUT(1 << 15, "6.12"),
    /** Reads and writes can carry attributes such as integrity data. */
    RW_ATTR(1 << 16, "6.14"),
    /** Waiting need not count as iowait. */
    NO_IOWAIT(1 << 17, "6.15");

    /** The feature's bit in {@code io_uring_params.features}. */
    public final int bit;
    /** The first kernel release that reports it. */
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
