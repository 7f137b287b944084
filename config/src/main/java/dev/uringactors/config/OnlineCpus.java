package dev.uringactors.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Optional;

/** The CPUs the kernel has online, from the list it keeps in sysfs ("0-3,8,10-11"). */
final class OnlineCpus {
    private static final Path LIST = Path.of("/sys/devices/system/cpu/online");
    private final BitSet cpus;
    private final String listed;

    private OnlineCpus(BitSet cpus, String listed) {
        this.cpus = cpus;
        this.listed = listed;
    }

    /** This machine's online CPUs; empty where sysfs does not say (then the kernel is left to judge). */
    static Optional<OnlineCpus> read() {
        try {
            return Optional.of(parse(Files.readString(LIST)));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** A kernel CPU list: ranges and single CPUs, separated by commas. */
    static OnlineCpus parse(String list) {
        String listed = list.strip();
        BitSet cpus = new BitSet();
        for (String part : listed.split(",")) {
            int dash = part.indexOf('-');
            int first = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
            int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1));
            cpus.set(first, last + 1);
        }
        return new OnlineCpus(cpus, listed);
    }

    boolean contains(int cpu) {
        return cpus.get(cpu);
    }

    /** The list as the kernel wrote it. */
    @Override
    public String toString() {
        return listed;
    }
}
