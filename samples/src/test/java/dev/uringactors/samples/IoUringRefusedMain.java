package dev.uringactors.samples;

import dev.uringactors.ring.Errno;
import dev.uringactors.ring.SeccompFilter;

/**
 * A sample ({@link Main}) in a process where io_uring_setup fails with EPERM on every thread, as under Docker's
 * default seccomp profile. Exits 77 where no seccomp filter can be had; says when the sample starts.
 */
final class IoUringRefusedMain {
    static final int NO_FILTER = 77;
    /** The line it prints once the filter is in, as the sample starts. */
    static final String FILTER_IN = "io_uring_setup refused from here on";

    private IoUringRefusedMain() {
    }

    public static void main(String[] args) {
        String whyNot = SeccompFilter.refuseInThisProcess(Errno.EPERM, SeccompFilter.IO_URING_SETUP);
        if (whyNot != null) {
            System.out.println("no seccomp filter: " + whyNot);
            System.exit(NO_FILTER);
        }
        System.out.println(FILTER_IN);
        Main.main(args);
    }
}
