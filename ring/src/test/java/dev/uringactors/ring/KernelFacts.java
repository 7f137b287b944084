package dev.uringactors.ring;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What this kernel offers, found without the code under test: the release from {@code uname -r}, and io_uring's
 * answers to raw system calls made through a JNA binding of the tests' own. A test skips on these facts, never on
 * {@link Probe} or on an exception of the library, so that a bug there fails a test instead of hiding it.
 */
public final class KernelFacts {
    private static final int SYS_IO_URING_SETUP = 425;
    private static final int SYS_IO_URING_REGISTER = 427;
    private static final int IORING_REGISTER_PROBE = 8;
    private static final int IORING_SETUP_ATTACH_WQ = 1 << 5;
    private static final int PARAMS_SIZE = 120;
    private static final int PROBE_OPS = 256;
    private static final int IO_URING_OP_SUPPORTED = 1;
    private static final String RELEASE = uname();

    /** The C library's calls, bound here rather than through the library's own {@code LibC}. */
    private interface C extends Library {
        C INSTANCE = Native.load("c", C.class);

        int syscall(int number, Object... args) throws LastErrorException;

        int open(String path, int flags) throws LastErrorException;

        int close(int fd) throws LastErrorException;
    }

    private KernelFacts() {
    }

    /** The running kernel's release, as {@code uname -r} prints it, e.g. "6.18.4". */
    public static String release() {
        return RELEASE;
    }

    /** Whether the running kernel is at least {@code major.minor}. */
    public static boolean atLeast(int major, int minor) {
        String[] parts = RELEASE.split("[.-]");
        int runningMajor = Integer.parseInt(parts[0]);
        int runningMinor = Integer.parseInt(parts[1]);
        return runningMajor > major || (runningMajor == major && runningMinor >= minor);
    }

    /** Whether the running kernel is at least {@code release}, e.g. "6.13". */
    public static boolean atLeast(String release) {
        String[] parts = release.split("\\.");
        return atLeast(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }

    /** Why io_uring cannot be set up here (a plain 4-entry io_uring_setup's errno, and the sysctl), if it cannot. */
    public static Optional<String> ioUringRefusal() {
        try (Setup plain = setup(0, 0, 0, -1)) {
            return Optional.empty();
        } catch (LastErrorException e) {
            return Optional.of("io_uring_setup failed with " + Errno.name(e.getErrorCode()) + " on Linux " + RELEASE
                    + ", kernel.io_uring_disabled = " + readOr("/proc/sys/kernel/io_uring_disabled", "absent"));
        }
    }

    /** Whether a plain io_uring_setup takes {@code flags} (with the companions the kernel requires). */
    public static boolean setupAccepts(int flags) {
        try (Setup shared = (flags & IORING_SETUP_ATTACH_WQ) != 0 ? setup(0, 0, 0, -1) : null) {
            // CQSIZE wants a CQ size, SQ_AFF a CPU, ATTACH_WQ a ring to share: 16, CPU 0 and a ring of its own.
            setup(flags, 16, 0, shared == null ? -1 : shared.fd).close();
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    /** The features a plain ring reports (io_uring_params.features). */
    public static int features() {
        try (Setup setup = setup(0, 0, 0, -1)) {
            return setup.features;
        }
    }

    /** The ops IORING_REGISTER_PROBE marks as supported, by opcode. */
    public static BitSet supportedOps() {
        try (Setup setup = setup(0, 0, 0, -1); Memory probe = new Memory(16 + 8L * PROBE_OPS)) {
            probe.clear();
            C.INSTANCE.syscall(SYS_IO_URING_REGISTER, setup.fd, IORING_REGISTER_PROBE, probe, PROBE_OPS);
            int listed = Byte.toUnsignedInt(probe.getByte(1)); // ops_len
            BitSet ops = new BitSet();
            for (int i = 0; i < listed; i++) {
                long entry = 16 + 8L * i; // struct io_uring_probe_op: op, resv, flags (u16), resv2 (u32)
                if ((probe.getShort(entry + 2) & IO_URING_OP_SUPPORTED) != 0) {
                    ops.set(Byte.toUnsignedInt(probe.getByte(entry)));
                }
            }
            return ops;
        }
    }

    /** The errno of a plain open(2) of {@code file} for reading with O_DIRECT, or 0 if it opens. */
    public static int directOpenErrno(Path file) {
        // O_DIRECT's value is the architecture's: asm-generic's on arm64, x86's elsewhere that this runs.
        int oDirect = System.getProperty("os.arch").equals("aarch64") ? 0200000 : 040000;
        try {
            C.INSTANCE.close(C.INSTANCE.open(file.toString(), oDirect));
            return 0;
        } catch (LastErrorException e) {
            return e.getErrorCode();
        }
    }

    private static Setup setup(int flags, int cqEntries, int sqThreadCpu, int wqFd) {
        try (Memory params = new Memory(PARAMS_SIZE)) {
            params.clear();
            params.setInt(4, cqEntries);
            params.setInt(8, flags);
            params.setInt(12, sqThreadCpu);
            params.setInt(24, wqFd);
            int fd = C.INSTANCE.syscall(SYS_IO_URING_SETUP, 4, params);
            return new Setup(fd, params.getInt(20));
        }
    }

    /** A raw ring's fd (closed with it) and the features it reported. */
    private record Setup(int fd, int features) implements AutoCloseable {
        @Override
        public void close() {
            C.INSTANCE.close(fd);
        }
    }

    private static String uname() {
        try {
            Process p = new ProcessBuilder("uname", "-r").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("uname -r failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("uname -r could not run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running uname -r", e);
        }
    }

    private static String readOr(String file, String fallback) {
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            return fallback;
        }
    }
}
