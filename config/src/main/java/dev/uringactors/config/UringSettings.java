package dev.uringactors.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import dev.uringactors.ring.IoWqWorkers;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.SetupFlag;
import dev.uringactors.ring.wait.ClassicPollWait;
import dev.uringactors.ring.wait.HybridPollWait;
import dev.uringactors.ring.wait.InterruptWait;
import dev.uringactors.ring.wait.WaitStrategy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code uring} block of the configuration, read once, checked, and immutable. {@link #from(Config)}
 * applies the chosen profile under the keys the user set and fails on the first bad value with a
 * {@link ConfigException.BadValue} that names its path. Every key is documented in {@code reference.conf}.
 */
public record UringSettings(
        String profile,
        BackendMode backend,
        int rings,
        int sqEntries,
        int cqEntries,
        WaitMode waitStrategy,
        Hybrid hybrid,
        boolean singleIssuer,
        boolean deferTaskrun,
        boolean submitAll,
        boolean coopTaskrun,
        Sqpoll sqpoll,
        IopollMode iopoll,
        IopollFallback iopollFallback,
        int maxIoSize,
        FixedBuffers fixedBuffers,
        int registeredFileSlots,
        IoWqWorkers ioWqMaxWorkers,
        int dispatcherThroughput,
        int tasksPerTurn,
        Duration turnTime,
        Duration stuckTaskWarning,
        int threadStackSize,
        Duration shutdownTimeout,
        Duration requestTimeout,
        Admission admission,
        Supervision supervision,
        Tcp tcp,
        boolean jmx) {

    /** {@code uring.backend}: what does the I/O. */
    public enum BackendMode {
        /** io_uring where the kernel and process allow it with these settings, else the JDK backend. */
        AUTO,
        /** io_uring, or a failed start naming the reason. */
        IO_URING,
        /** The JDK backend (Pekko's Tcp and HTTP transport, JDK file channels); no ring is opened. */
        JDK
    }

    /** {@code uring.wait-strategy}: how a ring thread waits for completions. */
    public enum WaitMode {
        /** Blocks in io_uring_enter until a completion or a wake-up. */
        INTERRUPT,
        /** Spins on the completion queue while requests are in flight. */
        CLASSIC,
        /** Sleeps half the expected completion time, then spins. */
        HYBRID
    }

    /** {@code uring.unknown-keys}: what a key under {@code uring} that the library does not know does. */
    public enum UnknownKeysMode {
        /** Start fails, naming the key and the nearest known one. */
        FAIL,
        /** A warning is logged and the key is ignored. */
        WARN
    }

    /** {@code uring.iopoll}: whether O_DIRECT files get a ring that polls the device. */
    public enum IopollMode {
        /** No IOPOLL ring. */
        OFF,
        /** An IOPOLL ring, polled classically. */
        ON,
        /** An IOPOLL ring with the kernel's HYBRID_IOPOLL (6.13). */
        HYBRID,
        /** HYBRID where the kernel has it, else ON. */
        AUTO
    }

    /** {@code uring.iopoll-fallback}: what happens where IOPOLL cannot work. */
    public enum IopollFallback {
        /** The request fails, with a hint naming the device's io_poll setting. */
        FAIL,
        /** The request goes to a plain ring. */
        PLAIN
    }

    /**
     * {@code uring.admission}: per ring, the callers' requests (file requests) in the kernel at once, and those
     * that may wait for room; past both a request is refused at once.
     */
    public record Admission(int maxInFlight, int maxWaiting) {
    }

    /** {@code uring.buffers.fixed}: {@code count} registered buffers of {@code size} bytes per ring; 0 for none. */
    public record FixedBuffers(int count, int size) {
    }

    /** {@code uring.hybrid}. */
    public record Hybrid(Duration maxSpin, Duration minSleep, int window) {
    }

    /**
     * {@code uring.sqpoll}: {@code groups} SQ threads, ring {@code i} in group {@code i % groups}; {@code cpus} is
     * empty (no pinning) or gives each group's CPU.
     */
    public record Sqpoll(boolean enabled, int groups, List<Integer> cpus, Duration idle) {
        /** The group of ring {@code ring}. */
        public int groupOf(int ring) {
            return ring % groups;
        }

        /** The CPU of group {@code group}'s SQ thread, or -1 for none. */
        public int cpuOf(int group) {
            return cpus.isEmpty() ? -1 : cpus.get(group);
        }
    }

    /** {@code uring.supervision}: restarts of a failed ring allowed within a time window. */
    public record Supervision(int maxRestarts, Duration within) {
    }

    /** {@code uring.tcp.listener}: how the rings share a bound port. */
    public enum ListenerMode {
        /** A listening socket per ring on one port (SO_REUSEPORT); the kernel spreads connections. */
        REUSE_PORT,
        /** One listening socket all rings accept on; each connection is dealt to the ring with the fewest. */
        SHARED
    }

    /** {@code uring.tcp.accept}: how connections are accepted. */
    public enum AcceptMode {
        /** One request that accepts connection after connection (5.19). */
        MULTISHOT,
        /** One request per connection. */
        SINGLE
    }

    /**
     * {@code uring.tcp}; {@code zeroCopyThreshold}, {@code spliceThreshold} and {@code readAhead} are -1 for off,
     * {@code idleTimeout} null for infinite.
     */
    public record Tcp(ListenerMode listener, AcceptMode accept, int backlog, boolean noDelay, int recvBuffers,
                      int recvBufferSize, int maxWriteQueue, int zeroCopyThreshold, Duration idleTimeout,
                      Duration acceptBackoff, Duration registerTimeout, int fileChunk, int writeChunk,
                      int spliceThreshold, int readAhead) {
        /** These settings with another idle timeout (null: infinite), for one listener. */
        public Tcp withIdleTimeout(Duration timeout) {
            return new Tcp(listener, accept, backlog, noDelay, recvBuffers, recvBufferSize, maxWriteQueue,
                    zeroCopyThreshold, timeout, acceptBackoff, registerTimeout, fileChunk, writeChunk, spliceThreshold,
                    readAhead);
        }

        /** A bind's backlog: {@code requested} when it asks for one (above 0), else {@code uring.tcp.backlog}. */
        public int backlogOr(int requested) {
            return requested > 0 ? requested : backlog;
        }
    }

    /** Reads {@code uring} from a whole configuration (an actor system's, or {@code ConfigFactory.load()}). */
    public static UringSettings from(Config root) {
        UnknownKeys.check(root.getConfig("uring"), new SettingsReader(root.getConfig("uring"))
                .oneOf("unknown-keys", UnknownKeysMode.class) == UnknownKeysMode.WARN);
        Config uring = withProfile(root.getConfig("uring"));
        SettingsReader r = new SettingsReader(uring);
        int sqEntries = r.powerOfTwoOrAuto("sq-entries", 1, 32768, -1);
        int cqEntries = r.powerOfTwoOrAuto("cq-entries", 1, 65536, 0);
        if (cqEntries != 0 && cqEntries < sqEntries) {
            throw SettingsReader.bad("cq-entries", "auto or at least sq-entries (" + sqEntries + ")", cqEntries);
        }
        boolean singleIssuer = r.bool("single-issuer");
        boolean deferTaskrun = r.bool("defer-taskrun");
        int rings = r.intOrAuto("rings", 1, 256, Runtime.getRuntime().availableProcessors());
        int groups = r.intOrWord("sqpoll.groups", "per-ring", rings, 1, rings);
        Sqpoll sqpoll = new Sqpoll(r.bool("sqpoll.enabled"), groups,
                r.intList("sqpoll.cpus", 0, 4095, groups, "SQ thread group"),
                r.duration("sqpoll.idle", Duration.ZERO, Duration.ofHours(1)));
        if (sqpoll.enabled()) {
            OnlineCpus.read().ifPresent(online -> requireOnline(sqpoll.cpus(), online));
        }
        if (deferTaskrun && !singleIssuer) {
            throw SettingsReader.bad("defer-taskrun", "off when uring.single-issuer is off (the kernel needs both)",
                    "on");
        }
        if (deferTaskrun && sqpoll.enabled()) {
            throw SettingsReader.bad("defer-taskrun", "off when uring.sqpoll.enabled is on (the SQ thread runs "
                    + "the completion work)", "on");
        }
        return new UringSettings(
                uring.getString("profile"),
                r.oneOf("backend", BackendMode.class),
                rings,
                sqEntries,
                cqEntries,
                r.oneOf("wait-strategy", WaitMode.class),
                new Hybrid(r.duration("hybrid.max-spin", Duration.ZERO, Duration.ofSeconds(1)),
                        r.duration("hybrid.min-sleep", Duration.ZERO, Duration.ofSeconds(1)),
                        r.intIn("hybrid.window", 1, 4096)),
                singleIssuer,
                deferTaskrun,
                r.bool("submit-all"),
                r.bool("coop-taskrun"),
                sqpoll,
                r.oneOf("iopoll", IopollMode.class),
                r.oneOf("iopoll-fallback", IopollFallback.class),
                r.bytes("buffers.max-io-size", 512, 1 << 30),
                new FixedBuffers(r.intIn("buffers.fixed.count", 0, 16384),
                        r.bytes("buffers.fixed.size", 4096, 1 << 30)),
                r.intIn("files.registered-slots", 0, 1 << 20),
                new IoWqWorkers(r.intIn("io-wq.max-workers.bounded", 0, 1 << 20),
                        r.intIn("io-wq.max-workers.unbounded", 0, 1 << 20)),
                r.intIn("dispatcher.throughput", 1, 100_000),
                r.intIn("dispatcher.tasks-per-turn", 1, 1_000_000),
                r.duration("dispatcher.turn-time", Duration.ofNanos(1000), Duration.ofSeconds(1)),
                r.duration("dispatcher.stuck-task-warning", Duration.ofMillis(10), Duration.ofHours(1)),
                r.bytes("dispatcher.thread-stack-size", 256 << 10, 1 << 30),
                r.duration("shutdown-timeout", Duration.ofMillis(1), Duration.ofHours(1)),
                r.duration("request-timeout", Duration.ofMillis(1), Duration.ofDays(1)),
                new Admission(r.intOrAuto("admission.max-in-flight", 1, 1 << 20,
                                cqEntries != 0 ? cqEntries : 2 * sqEntries),
                        r.intOrAuto("admission.max-waiting", 0, 1 << 24, Math.max(16 * sqEntries, 1024))),
                new Supervision(r.intIn("supervision.max-restarts", 0, 1000),
                        r.duration("supervision.within", Duration.ofMillis(1), Duration.ofDays(1))),
                new Tcp(r.oneOf("tcp.listener", ListenerMode.class),
                        r.oneOf("tcp.accept", AcceptMode.class),
                        r.intIn("tcp.backlog", 1, 65535),
                        r.bool("tcp.no-delay"),
                        r.powerOfTwoOrAuto("tcp.recv-buffers", 1, 32768, -1),
                        r.bytes("tcp.recv-buffer-size", 256, 1 << 20),
                        r.bytes("tcp.max-write-queue", 1024, 1 << 30),
                        r.bytesOrOff("tcp.zero-copy-threshold", 1, 1 << 30),
                        r.durationOrInfinite("tcp.idle-timeout", Duration.ofMillis(1), Duration.ofDays(365)),
                        r.duration("tcp.accept-backoff", Duration.ofMillis(1), Duration.ofMinutes(1)),
                        r.duration("tcp.register-timeout", Duration.ofMillis(1), Duration.ofDays(1)),
                        r.bytes("tcp.file-chunk", 4096, 64 << 20),
                        r.bytes("tcp.write-chunk", 512, 1 << 30),
                        r.bytesOrOff("tcp.splice-threshold", 1, 64 << 20),
                        r.bytesOrOff("tcp.read-ahead", 1024, 1 << 30)),
                r.bool("jmx"));
    }

    /**
     * The kernel pins an SQ thread only to an online CPU, and says otherwise with an EINVAL that names no setting
     * (and which the ring's hints take for entries out of range): said here instead, naming the CPU.
     */
    private static void requireOnline(List<Integer> cpus, OnlineCpus online) {
        for (int cpu : cpus) {
            if (!online.contains(cpu)) {
                throw SettingsReader.bad("sqpoll.cpus", "CPUs that are online (online: " + online + ")",
                        cpus + ": CPU " + cpu + " is not online");
            }
        }
    }

    /** The settings of {@code ConfigFactory.load()}. */
    public static UringSettings load() {
        return from(ConfigFactory.load());
    }

    /**
     * The profile's keys go under the keys the user set and over reference.conf's defaults. What the user set is
     * told apart by where each value came from.
     */
    private static Config withProfile(Config uring) {
        String profile = uring.getString("profile");
        if (profile.equals("none")) {
            return uring;
        }
        if (!uring.hasPath("profiles." + profile)) {
            throw SettingsReader.bad("profile", "none or a block under uring.profiles ("
                    + String.join(", ", uring.getConfig("profiles").root().keySet()) + ")", "'" + profile + "'");
        }
        Config userSet = ConfigFactory.empty();
        for (Map.Entry<String, ConfigValue> e : uring.entrySet()) {
            if (!"reference.conf".equals(e.getValue().origin().resource())) {
                userSet = userSet.withValue(e.getKey(), e.getValue());
            }
        }
        return userSet.withFallback(uring.getConfig("profiles." + profile)).withFallback(uring);
    }

    /**
     * The options of ring {@code ring} from these settings. With SQPOLL, its group's SQ thread CPU; whoever opens
     * it attaches it to a member of its group ({@link RingOptions#withAttachWqFd}).
     */
    public RingOptions ringOptions(int ring) {
        List<SetupFlag> flags = new ArrayList<>();
        if (singleIssuer) {
            flags.add(SetupFlag.SINGLE_ISSUER);
        }
        if (deferTaskrun) {
            flags.add(SetupFlag.DEFER_TASKRUN);
            // Completions waiting for the ring thread show as IORING_SQ_TASKRUN: a loop too busy to wait then
            // still collects them at its next submit, and a spinning one reads the flag instead of entering.
            flags.add(SetupFlag.TASKRUN_FLAG);
        } else if (coopTaskrun && !sqpoll.enabled()) {
            flags.add(SetupFlag.COOP_TASKRUN);
        }
        if (submitAll) {
            flags.add(SetupFlag.SUBMIT_ALL);
        }
        if (sqpoll.enabled()) {
            flags.add(SetupFlag.SQPOLL);
        }
        return RingOptions.defaults().withEntries(sqEntries).withCqEntries(cqEntries)
                .withFlags(flags.toArray(SetupFlag[]::new))
                .withSqThreadCpu(sqpoll.enabled() ? sqpoll.cpuOf(sqpoll.groupOf(ring)) : -1)
                .withSqThreadIdle(sqpoll.idle())
                .withCloseTimeout(shutdownTimeout);
    }

    /** The options of an IOPOLL ring for O_DIRECT files ({@code iopoll} on, hybrid or auto). */
    public RingOptions iopollRingOptions(int ring) {
        RingOptions base = ringOptions(ring);
        List<SetupFlag> flags = new ArrayList<>(base.flags());
        // Completions are found by polling, not task work; TASKRUN_FLAG is refused (EINVAL) without a taskrun mode.
        flags.remove(SetupFlag.DEFER_TASKRUN);
        flags.remove(SetupFlag.TASKRUN_FLAG);
        flags.add(SetupFlag.IOPOLL);
        if (iopoll == IopollMode.HYBRID) {
            flags.add(SetupFlag.HYBRID_IOPOLL);
        }
        return base.withFlags(flags.toArray(SetupFlag[]::new));
    }

    /** A new wait strategy for one ring. */
    public WaitStrategy newWaitStrategy() {
        return switch (waitStrategy) {
            case INTERRUPT -> new InterruptWait();
            case CLASSIC -> new ClassicPollWait();
            case HYBRID -> new HybridPollWait(hybrid.maxSpin().toNanos(), hybrid.minSleep().toNanos(),
                    hybrid.window());
        };
    }
}
