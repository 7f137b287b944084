package dev.uringactors.ring;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.Set;

/**
 * What this kernel's io_uring offers: the ops it supports (IORING_REGISTER_PROBE), the setup flags it accepts
 * (found by setting up a small ring with each), and the features it reports. {@link #report()} prints it.
 */
public final class Probe {
    private final String kernel;
    private final String unavailable;
    private final BitSet ops;
    private final Set<SetupFlag> setupFlags;
    private final Set<Feature> features;
    private final boolean ringFdRegistration;

    private Probe(String unavailable, BitSet ops, Set<SetupFlag> setupFlags, Set<Feature> features,
                  boolean ringFdRegistration) {
        this.kernel = kernelRelease();
        this.unavailable = unavailable;
        this.ops = ops;
        this.setupFlags = setupFlags;
        this.features = features;
        this.ringFdRegistration = ringFdRegistration;
    }

    /** Probes this kernel. Never throws for a missing io_uring: {@link #available()} is then false. */
    public static Probe run() {
        BitSet ops;
        Set<Feature> features;
        boolean ringFd;
        try (Ring ring = Ring.open(4)) {
            ops = ring.probeOps();
            features = ring.features();
            ringFd = ring.ringFdRegistered();
        } catch (UringException e) {
            return new Probe(e.getMessage(), new BitSet(), Set.of(), Set.of(), false);
        }
        Set<SetupFlag> flags = EnumSet.noneOf(SetupFlag.class);
        for (SetupFlag flag : SetupFlag.values()) {
            if (accepts(flag)) {
                flags.add(flag);
            }
        }
        return new Probe(null, ops, flags, features, ringFd);
    }

    private static boolean accepts(SetupFlag flag) {
        RingOptions options = RingOptions.defaults().withEntries(4).withRegisterRingFd(false);
        Set<SetupFlag> set = EnumSet.of(flag);
        for (SetupFlag companion : SetupFlag.values()) {
            if ((flag.companions & companion.bit) != 0) {
                set.add(companion);
            }
        }
        options = options.withFlags(set.toArray(SetupFlag[]::new));
        if (flag == SetupFlag.CQSIZE) {
            options = options.withCqEntries(16);
        } else if (flag == SetupFlag.SQ_AFF) {
            options = options.withSqThreadCpu(0);
        }
        if (flag == SetupFlag.ATTACH_WQ) {
            try (Ring base = Ring.open(options.withFlags())) {
                return tryOpen(options.withFlags().withAttachWqFd(base.fd()));
            }
        }
        return tryOpen(options);
    }

    private static boolean tryOpen(RingOptions options) {
        try {
            Ring.open(options).close();
            return true;
        } catch (UringException e) {
            return false;
        }
    }

    /** Whether io_uring could be set up at all. */
    public boolean available() {
        return unavailable == null;
    }

    /** Whether this kernel supports the op. */
    public boolean supports(Opcode op) {
        return ops.get(op.code());
    }

    /** Whether this kernel accepts the setup flag (tried on a ring of its own). */
    public boolean supports(SetupFlag flag) {
        return setupFlags.contains(flag);
    }

    /** Whether this kernel reports the feature. */
    public boolean supports(Feature feature) {
        return features.contains(feature);
    }

    /** The kernel release, as uname(2) gives it. */
    public String kernel() {
        return kernel;
    }

    /** A readable report: kernel, sysctl, features, setup flags and ops. */
    public String report() {
        StringBuilder out = new StringBuilder();
        out.append("io_uring probe: Linux ").append(kernel).append(", kernel.io_uring_disabled = ")
                .append(readOr(Path.of("/proc/sys/kernel/io_uring_disabled"), "absent")).append('\n');
        if (!available()) {
            return out.append("io_uring is NOT available: ").append(unavailable).append('\n').toString();
        }
        out.append("features:");
        for (Feature f : Feature.values()) {
            out.append(' ').append(f).append(features.contains(f) ? "" : "(no)");
        }
        out.append("\nsetup flags:");
        for (SetupFlag f : SetupFlag.values()) {
            out.append(' ').append(f).append(setupFlags.contains(f) ? "" : "(no, needs " + f.sinceKernel + ")");
        }
        out.append("\nregistered ring fd: ").append(ringFdRegistration ? "yes" : "no");
        out.append("\nops supported (").append(ops.cardinality()).append("):");
        ops.stream().forEach(code -> out.append(' ').append(Opcode.nameOf(code)));
        StringBuilder missing = new StringBuilder();
        for (Opcode op : Opcode.values()) {
            if (!ops.get(op.code())) {
                missing.append(' ').append(op);
            }
        }
        out.append("\nops missing:").append(missing.length() == 0 ? " none" : missing).append('\n');
        return out.toString();
    }

    /** The running kernel's release, e.g. "6.18.4". */
    public static String kernelRelease() {
        return readOr(Path.of("/proc/sys/kernel/osrelease"), System.getProperty("os.version"));
    }

    private static String readOr(Path file, String fallback) {
        try {
            return Files.readString(file).trim();
        } catch (Exception e) {
            return fallback;
        }
    }
}
