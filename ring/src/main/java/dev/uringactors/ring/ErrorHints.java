package dev.uringactors.ring;

import java.nio.file.Files;
import java.nio.file.Path;

/** The usual cause of an errno in the place it came from, in words a user can act on. */
final class ErrorHints {
    private ErrorHints() {
    }

    static String forSetup(int errno, int flags) {
        return switch (errno) {
            case Errno.EPERM -> "io_uring is not allowed for this process: " + disabledSysctl()
                    + " a seccomp profile (Docker's default one, for example) may also block io_uring_setup";
            case Errno.ENOSYS -> "this kernel has no io_uring (older than 5.1 or built without CONFIG_IO_URING), "
                    + "or a seccomp profile answers ENOSYS for io_uring_setup";
            case Errno.ENOMEM -> "not enough locked memory for the ring: raise the memlock limit (ulimit -l, "
                    + "RLIMIT_MEMLOCK; kernels before 5.12 charge rings against it) or use fewer entries";
            case Errno.EINVAL -> invalidFlags(flags);
            default -> null;
        };
    }

    static String forEnter(int errno, int flags) {
        if (errno == Errno.EEXIST && SetupFlag.in(SetupFlag.SINGLE_ISSUER, flags)) {
            return "the ring was set up with SINGLE_ISSUER and this thread is not its issuer: submit only from the "
                    + "thread that created it (or enabled it, with R_DISABLED)";
        }
        if (errno == Errno.EBADF) {
            return "the ring is closed, or its registered fd was used from a thread that did not register it";
        }
        return null;
    }

    static String forRegister(int errno) {
        return switch (errno) {
            case Errno.ENOMEM -> "registered buffers are pinned and charged to the memlock limit (ulimit -l): "
                    + "raise it or register less";
            case Errno.EBUSY -> "something of this kind is already registered: unregister it first";
            case Errno.EMFILE -> "more files than RLIMIT_NOFILE allows";
            default -> null;
        };
    }

    static String forResult(Opcode op, int errno, String target, int ringFlags) {
        if (errno == Errno.EOPNOTSUPP && SetupFlag.in(SetupFlag.IOPOLL, ringFlags)) {
            return noPollQueues(ioPollFile(target));
        }
        if (errno == Errno.EINVAL && SetupFlag.in(SetupFlag.IOPOLL, ringFlags)) {
            return "an IOPOLL ring takes only O_DIRECT reads and writes of files on a polled block device";
        }
        if (errno == Errno.EINVAL && (op == Opcode.READ || op == Opcode.WRITE)) {
            return "with O_DIRECT the buffer address, length and offset must be multiples of the logical block size";
        }
        if (errno == Errno.ECANCELED) {
            return "the request was cancelled (ASYNC_CANCEL, a failed link, or the ring closing)";
        }
        return null;
    }

    /** An IOPOLL ring and a device without poll queues; {@code ioPollFile} names the sysfs file to check. */
    static String noPollQueues(String ioPollFile) {
        return "this is an IOPOLL ring and the file's block device has no poll queues (" + ioPollFile
                + " is not 1); read it through a ring without IOPOLL, or give the driver poll queues (for NVMe: "
                + "nvme.poll_queues)";
    }

    private static String ioPollFile(String target) {
        if (target != null) {
            try {
                Path p = Path.of(target);
                if (Files.exists(p)) {
                    return PolledIo.ioPollFile(PolledIo.of(p));
                }
            } catch (RuntimeException ignored) {
                // not a path: fall through to the generic name
            }
        }
        return "/sys/block/<dev>/queue/io_poll";
    }

    private static String disabledSysctl() {
        Path sysctl = Path.of("/proc/sys/kernel/io_uring_disabled");
        try {
            String value = Files.readString(sysctl).trim();
            return sysctl + " is " + value + " (0 allows all, 1 only members of kernel.io_uring_group, 2 nobody);";
        } catch (Exception e) {
            return "check " + sysctl + " (0 allows all, 1 only kernel.io_uring_group, 2 nobody);";
        }
    }

    private static String invalidFlags(int flags) {
        if (SetupFlag.in(SetupFlag.HYBRID_IOPOLL, flags) && !SetupFlag.in(SetupFlag.IOPOLL, flags)) {
            return "HYBRID_IOPOLL needs IOPOLL";
        }
        if (SetupFlag.in(SetupFlag.DEFER_TASKRUN, flags) && !SetupFlag.in(SetupFlag.SINGLE_ISSUER, flags)) {
            return "DEFER_TASKRUN needs SINGLE_ISSUER";
        }
        if (SetupFlag.in(SetupFlag.SQPOLL, flags) && (flags & (SetupFlag.DEFER_TASKRUN.bit
                | SetupFlag.COOP_TASKRUN.bit | SetupFlag.TASKRUN_FLAG.bit)) != 0) {
            return "DEFER_TASKRUN, COOP_TASKRUN and TASKRUN_FLAG cannot be combined with SQPOLL "
                    + "(the SQ thread runs the task work)";
        }
        if (SetupFlag.in(SetupFlag.TASKRUN_FLAG, flags)
                && (flags & (SetupFlag.COOP_TASKRUN.bit | SetupFlag.DEFER_TASKRUN.bit)) == 0) {
            return "TASKRUN_FLAG needs COOP_TASKRUN or DEFER_TASKRUN";
        }
        if (SetupFlag.in(SetupFlag.SQ_AFF, flags) && !SetupFlag.in(SetupFlag.SQPOLL, flags)) {
            return "SQ_AFF needs SQPOLL";
        }
        StringBuilder newer = new StringBuilder();
        for (SetupFlag f : SetupFlag.values()) {
            if (SetupFlag.in(f, flags)) {
                newer.append(newer.length() == 0 ? "" : ", ").append(f).append(" (").append(f.sinceKernel)
                        .append(')');
            }
        }
        return "the kernel rejected these flags or sizes: entries must be 1..32768 (or use CLAMP) and the CQ at "
                + "least the SQ; flags requested: " + (newer.length() == 0 ? "none" : newer)
                + "; this kernel is " + Probe.kernelRelease();
    }
}
