package dev.uringactors.config;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import dev.uringactors.ring.IoWqWorkers;
import dev.uringactors.ring.RingOptions;
import dev.uringactors.ring.SetupFlag;
import dev.uringactors.ring.wait.HybridPollWait;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UringSettingsTest {
    /**
     * Settings from {@code hocon} over reference.conf, as an actor system would load them; without the -D
     * overrides that {@code defaultReference()} would merge in, since the build pins {@code uring.backend}.
     */
    static UringSettings settings(String hocon) {
        return UringSettings.from(ConfigFactory.parseString(hocon)
                .withFallback(ConfigFactory.defaultReferenceUnresolved()).resolve());
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        UringSettings s = settings("");
        assertEquals("none", s.profile());
        assertEquals(UringSettings.BackendMode.AUTO, s.backend());
        assertEquals(Runtime.getRuntime().availableProcessors(), s.rings(), "auto = cores");
        assertEquals(1024, s.sqEntries());
        assertEquals(0, s.cqEntries(), "auto = the kernel's default");
        assertEquals(UringSettings.WaitMode.INTERRUPT, s.waitStrategy());
        assertEquals(new UringSettings.Hybrid(Duration.ofNanos(200_000), Duration.ofNanos(10_000), 16), s.hybrid());
        assertTrue(s.singleIssuer() && s.deferTaskrun() && s.submitAll());
        assertFalse(s.coopTaskrun());
        assertEquals(new UringSettings.Sqpoll(false, 1, List.of(), Duration.ofSeconds(1)), s.sqpoll());
        assertEquals(UringSettings.IopollMode.OFF, s.iopoll());
        assertEquals(UringSettings.IopollFallback.FAIL, s.iopollFallback());
        assertEquals(1 << 20, s.maxIoSize());
        assertEquals(new IoWqWorkers(8, 8), s.ioWqMaxWorkers());
        assertEquals(64, s.dispatcherThroughput());
        assertEquals(256, s.tasksPerTurn());
        assertEquals(Duration.ofMillis(1), s.turnTime());
        assertEquals(Duration.ofSeconds(1), s.stuckTaskWarning());
        assertEquals(16 << 20, s.threadStackSize());
        assertEquals(Duration.ofSeconds(5), s.shutdownTimeout());
        assertEquals(Duration.ofSeconds(30), s.requestTimeout());
        assertEquals(new UringSettings.Admission(2048, 16384), s.admission(), "the CQ's size; 16 x sq-entries");
        assertEquals(new UringSettings.Supervision(10, Duration.ofMinutes(1)), s.supervision());
        assertFalse(s.jmx());
        assertEquals(new UringSettings.Tcp(UringSettings.ListenerMode.SHARED,
                UringSettings.AcceptMode.MULTISHOT, 4096, true, 512, 16384, 1 << 20,
                -1, null, Duration.ofMillis(100), Duration.ofSeconds(5), 128 * 1024, 128 * 1024,
                64 * 1024, 128 * 1024), s.tcp());
    }

    @Test
    void everyKeyCanBeSet() {
        UringSettings s = settings("""
                uring {
                  rings = 3, sq-entries = 64, cq-entries = 256, wait-strategy = hybrid
                  hybrid { max-spin = 50us, min-sleep = 5us, window = 4 }
                  single-issuer = on, defer-taskrun = off, submit-all = off, coop-taskrun = on
                  sqpoll { enabled = on, groups = per-ring, cpus = [1, 0, 1], idle = 20ms }
                  iopoll = auto, iopoll-fallback = plain
                  buffers { max-io-size = 256 KiB, fixed { count = 8, size = 16 KiB } }
                  files.registered-slots = 64
                  io-wq.max-workers { bounded = 0, unbounded = 2 }
                  dispatcher { throughput = 8, tasks-per-turn = 32 }
                  shutdown-timeout = 2s
                  request-timeout = 3s
                  admission { max-in-flight = 100, max-waiting = 0 }
                  supervision { max-restarts = 2, within = 10s }
                  jmx = on
                  tcp { listener = reuse-port, accept = single, backlog = 64, no-delay = off, recv-buffers = 64, recv-buffer-size = 4 KiB
                        max-write-queue = 64 KiB, zero-copy-threshold = 32 KiB, idle-timeout = 30s
                        accept-backoff = 1s, file-chunk = 64 KiB, write-chunk = 32 KiB, splice-threshold = off
                        read-ahead = 32 KiB }
                }""");
        assertEquals(3, s.rings());
        assertEquals(64, s.sqEntries());
        assertEquals(256, s.cqEntries());
        assertEquals(UringSettings.WaitMode.HYBRID, s.waitStrategy());
        assertEquals(new UringSettings.Hybrid(Duration.ofNanos(50_000), Duration.ofNanos(5_000), 4), s.hybrid());
        assertFalse(s.deferTaskrun() || s.submitAll());
        assertTrue(s.coopTaskrun());
        assertEquals(new UringSettings.Sqpoll(true, 3, List.of(1, 0, 1), Duration.ofMillis(20)), s.sqpoll());
        assertEquals(UringSettings.IopollMode.AUTO, s.iopoll());
        assertEquals(UringSettings.IopollFallback.PLAIN, s.iopollFallback());
        assertEquals(256 * 1024, s.maxIoSize());
        assertEquals(new UringSettings.FixedBuffers(8, 16 * 1024), s.fixedBuffers());
        assertEquals(64, s.registeredFileSlots());
        assertEquals(new IoWqWorkers(0, 2), s.ioWqMaxWorkers(), "0: the kernel's default");
        assertEquals(8, s.dispatcherThroughput());
        assertEquals(32, s.tasksPerTurn());
        assertEquals(Duration.ofSeconds(2), s.shutdownTimeout());
        assertEquals(Duration.ofSeconds(3), s.requestTimeout());
        assertEquals(new UringSettings.Admission(100, 0), s.admission(), "0: requests never wait");
        assertEquals(new UringSettings.Supervision(2, Duration.ofSeconds(10)), s.supervision());
        assertTrue(s.jmx());
        assertEquals(new UringSettings.Tcp(UringSettings.ListenerMode.REUSE_PORT,
                UringSettings.AcceptMode.SINGLE, 64, false, 64, 4096, 65536, 32768,
                Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(5), 65536, 32768,
                -1, 32768), s.tcp());
        assertInstanceOf(HybridPollWait.class, s.newWaitStrategy());
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', textBlock = """
            rings                     | 0              | whole number from 1 to 256
            rings                     | lots           | whole number from 1 to 256
            sq-entries                | 1000           | power of two from 1 to 32768
            sq-entries                | 65536          | power of two from 1 to 32768
            cq-entries                | 512            | at least sq-entries (1024)
            cq-entries                | 3000           | power of two
            wait-strategy             | spin           | one of interrupt | classic | hybrid
            hybrid.max-spin           | forever        | a duration such as 10ms
            hybrid.window             | 0              | whole number from 1 to 4096
            single-issuer             | maybe          | on or off
            submit-all                | 2              | on or off
            coop-taskrun              | yes please     | on or off
            sqpoll.enabled            | sometimes      | on or off
            sqpoll.groups             | 0              | per-ring or a whole number from 1 to
            sqpoll.cpus               | [1, 2, 3]      | [] or a list of 1 whole numbers from 0 to 4095
            sqpoll.cpus               | [-1]           | [] or a list of 1 whole numbers from 0 to 4095
            sqpoll.idle               | -1s            | a duration from 0s to 1h, got -1s
            iopoll                    | always         | one of off | on | hybrid | auto
            iopoll-fallback           | ignore         | one of fail | plain
            buffers.max-io-size       | 2 GiB          | a size from 512 to 1073741824 bytes
            buffers.max-io-size       | big            | a size such as 64 KiB
            buffers.fixed.count       | 16385          | whole number from 0 to 16384
            buffers.fixed.size        | 1 KiB          | a size from 4096 to
            files.registered-slots    | -1             | whole number from 0 to 1048576
            io-wq.max-workers.bounded | -1             | whole number from 0 to 1048576
            io-wq.max-workers.unbounded | many         | whole number from 0 to 1048576
            dispatcher.throughput     | 0              | whole number from 1 to 100000
            dispatcher.tasks-per-turn | 0              | whole number from 1 to 1000000
            dispatcher.turn-time      | 0s             | a duration from
            dispatcher.stuck-task-warning | 1ms        | a duration from 10ms to 1h, got 1ms
            dispatcher.thread-stack-size | 64 KiB     | a size from 262144 to 1073741824 bytes
            shutdown-timeout          | 0s             | a duration from 1ms to 1h, got 0s
            request-timeout           | soon           | a duration such as 10ms
            admission.max-in-flight   | 0              | whole number from 1 to 1048576
            admission.max-waiting     | -1             | whole number from 0 to 16777216
            supervision.max-restarts  | -1             | whole number from 0 to 1000
            supervision.within        | 0s             | a duration from 1ms to 24h, got 0s
            tcp.listener              | each           | one of reuse-port | shared
            tcp.accept                | many           | one of multishot | single
            tcp.backlog               | 0              | whole number from 1 to 65535
            tcp.no-delay              | fast           | on or off
            tcp.recv-buffers          | 100            | power of two from 1 to 32768
            tcp.recv-buffer-size      | 10             | a size from 256 to 1048576 bytes
            tcp.max-write-queue       | 1              | a size from 1024 to 1073741824 bytes
            tcp.zero-copy-threshold   | huge           | off or a size such as 64 KiB
            tcp.zero-copy-threshold   | 2 GiB          | off or a size from 1 to 1073741824 bytes
            tcp.idle-timeout          | never          | infinite or a duration such as 10ms
            tcp.idle-timeout          | 400d           | infinite or a duration from 1ms to 8760h, got 9600h
            hybrid.max-spin           | 1500ms         | a duration from 0s to 1s, got 1500ms
            hybrid.min-sleep          | 2s             | a duration from 0s to 1s, got 2s
            tcp.file-chunk            | 1 KiB          | a size from 4096 to 67108864 bytes
            tcp.write-chunk           | 100            | a size from 512 to 1073741824 bytes
            tcp.splice-threshold      | always         | off or a size such as 64 KiB
            tcp.read-ahead            | 100            | off or a size from 1024 to 1073741824 bytes
            jmx                       | sometimes      | on or off
            tcp.accept-backoff        | 0s             | a duration from 1ms to 1m, got 0s
            tcp.register-timeout      | 0s             | a duration from 1ms to 24h, got 0s
            profile                   | fast           | none or a block under uring.profiles
            backend                   | epoll          | one of auto | io-uring | jdk, got 'epoll'
            """)
    void badValueFailsWithItsPathTheValueAndWhatIsAllowed(String key, String value, String allowed) {
        ConfigException.BadValue e = assertThrows(ConfigException.BadValue.class,
                () -> settings("uring." + key + " = \"" + value + "\""));
        assertTrue(e.getMessage().contains("uring." + key), e.getMessage());
        assertTrue(e.getMessage().contains(allowed), e.getMessage());
    }

    @Test
    void aBindsBacklogIsItsOwnWhenItAsksForOneElseTheSettings() {
        UringSettings.Tcp tcp = settings("uring.tcp.backlog = 77").tcp();
        assertEquals(5, tcp.backlogOr(5));
        assertEquals(77, tcp.backlogOr(0));
        assertEquals(77, tcp.backlogOr(-1));
    }

    @Test
    void backendTakesEachDocumentedWord() {
        assertEquals(UringSettings.BackendMode.IO_URING, settings("uring.backend = io-uring").backend());
        assertEquals(UringSettings.BackendMode.JDK, settings("uring.backend = jdk").backend());
    }

    @Test
    void admissionDefaultsFollowTheQueues() {
        assertEquals(new UringSettings.Admission(512, 4096), settings("uring { sq-entries = 256, cq-entries = 512 }")
                .admission(), "the CQ's size; 16 x sq-entries");
        assertEquals(new UringSettings.Admission(4, 1024), settings("uring.sq-entries = 2").admission(),
                "twice sq-entries when the CQ is auto; at least 1024 waiting");
    }

    @Test
    void deferTaskrunNeedsSingleIssuerAndNoSqpoll() {
        ConfigException.BadValue noIssuer = assertThrows(ConfigException.BadValue.class,
                () -> settings("uring.single-issuer = off"));
        assertTrue(noIssuer.getMessage().contains("uring.defer-taskrun"), noIssuer.getMessage());
        ConfigException.BadValue sqpoll = assertThrows(ConfigException.BadValue.class,
                () -> settings("uring.sqpoll.enabled = on"));
        assertTrue(sqpoll.getMessage().contains("uring.sqpoll.enabled"), sqpoll.getMessage());
        assertTrue(settings("uring { sqpoll.enabled = on, defer-taskrun = off }").sqpoll().enabled());
    }

    @Test
    void anSqThreadCpuThatIsNotOnlineIsRefusedNamingTheCpu() {
        ConfigException.BadValue e = assertThrows(ConfigException.BadValue.class, () -> settings(
                "uring { rings = 2, defer-taskrun = off, sqpoll { enabled = on, groups = 2, cpus = [0, 4095] } }"));
        assertTrue(e.getMessage().contains("uring.sqpoll.cpus"), e.getMessage());
        assertTrue(e.getMessage().contains("CPU 4095 is not online"), e.getMessage());
        assertTrue(e.getMessage().contains("online: " + OnlineCpus.read().orElseThrow()), e.getMessage());
        assertEquals(List.of(4095), settings("uring { rings = 1, sqpoll.cpus = [4095] }").sqpoll().cpus(),
                "without SQPOLL the CPUs pin nothing, and are not looked at");
    }

    @Test
    void onlineCpusAreReadAsTheKernelListsThem() {
        OnlineCpus cpus = OnlineCpus.parse("0-3,8,10-11\n");
        assertTrue(cpus.contains(0) && cpus.contains(3) && cpus.contains(8) && cpus.contains(11));
        assertFalse(cpus.contains(4) || cpus.contains(9) || cpus.contains(12));
        assertEquals("0-3,8,10-11", cpus.toString());
        assertTrue(OnlineCpus.read().orElseThrow().contains(0), "CPU 0 is always online");
    }

    @Test
    void profileChangesDefaultsButNotWhatTheUserSet() {
        UringSettings throughput = settings("uring { profile = throughput, sq-entries = 256 }");
        assertEquals(256, throughput.sqEntries(), "set by the user");
        assertEquals(16384, throughput.cqEntries(), "from the profile");
        assertEquals(UringSettings.WaitMode.HYBRID, throughput.waitStrategy());
        assertEquals(256, throughput.dispatcherThroughput());

        assertEquals(UringSettings.WaitMode.CLASSIC, settings("uring.profile = latency").waitStrategy());
        UringSettings lowCpu = settings("uring { profile = low-cpu, wait-strategy = hybrid }");
        assertEquals(1, lowCpu.rings());
        assertEquals(UringSettings.WaitMode.HYBRID, lowCpu.waitStrategy(), "the user's choice wins");
    }

    @Test
    void ringOptionsCarryTheFlags() {
        RingOptions plain = settings("").ringOptions(0);
        assertEquals(1024, plain.entries());
        assertTrue(plain.flags().containsAll(java.util.Set.of(SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN,
                SetupFlag.SUBMIT_ALL)));
        RingOptions sqpoll = settings("uring { rings = 4, defer-taskrun = off, sqpoll { enabled = on, groups = 2, "
                + "cpus = [0, 1] } }").ringOptions(3);
        assertTrue(sqpoll.flags().contains(SetupFlag.SQPOLL));
        assertEquals(1, sqpoll.sqThreadCpu(), "ring 3 is in group 1, whose thread is on CPU 1");
        assertEquals(-1, sqpoll.attachWqFd(), "the opener attaches it, to a member open at that moment");
        RingOptions iopoll = settings("uring.iopoll = hybrid").iopollRingOptions(0);
        assertTrue(iopoll.flags().contains(SetupFlag.IOPOLL) && iopoll.flags().contains(SetupFlag.HYBRID_IOPOLL));
        assertFalse(iopoll.flags().contains(SetupFlag.DEFER_TASKRUN));
    }

    @Test
    void anUnknownKeyFailsWithTheNearestKnownOne() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("uring.wiat-strategy = classic"));
        assertTrue(e.getMessage().contains(
                "uring.wiat-strategy: unknown setting; did you mean uring.wait-strategy?"), e.getMessage());
        ConfigException nested = assertThrows(ConfigException.class, () -> settings("uring.tcp.idle-timout = 1s"));
        assertTrue(nested.getMessage().contains("did you mean uring.tcp.idle-timeout?"), nested.getMessage());
        ConfigException inProfile = assertThrows(ConfigException.class,
                () -> settings("uring.profiles.mine.rigns = 2"));
        assertTrue(inProfile.getMessage().contains("did you mean uring.rings?"), inProfile.getMessage());
    }

    @Test
    void unknownKeysCanBeLetThrough() {
        assertEquals(UringSettings.WaitMode.CLASSIC,
                settings("uring { unknown-keys = warn, wiat-strategy = hybrid, wait-strategy = classic }")
                        .waitStrategy());
    }
}
