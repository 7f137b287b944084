package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kv sample with --aof: what a node acknowledged is there again when a node starts on the same files, also
 * after the first was SIGKILLed.
 */
@ExtendWith(RequiresIoUring.class)
class KvAppendOnlyTest {
    @TempDir
    Path dir;

    private RunningKv start(KvAppendLog.Fsync fsync, String config) throws Exception {
        return RunningKv.start(config, Optional.of(dir), fsync);
    }

    /** A node of its own JVM on {@link #dir}, fsync always: what it acknowledged is in the files. */
    private KvNodeProcess startProcess(String name) throws Exception {
        return KvNodeProcess.start(name, "--port", "0", "--aof", dir.toString(), "--fsync", "always");
    }

    @Test
    void aNodeStartedOnTheFilesOfAKilledNodeHasEveryAcknowledgedWrite() throws Exception {
        try (KvNodeProcess killed = startProcess("killed")) {
            try (Jedis jedis = killed.client()) {
                jedis.set("a", "1");
                jedis.set("b", "2");
                jedis.del("b");
                jedis.incrBy("n", 41);
                jedis.incr("n");
                jedis.set("t", "v", SetParams.setParams().ex(1000));
                jedis.set("gone", "v", SetParams.setParams().px(1));
                jedis.mset("m1", "x", "m2", "y");
                jedis.set(new byte[] {'\r', '\n', 0}, new byte[] {'\n'});
            }
            killed.kill(); // SIGKILL: no clean shutdown, only what the acknowledgements promised
        }
        try (KvNodeProcess restarted = startProcess("restarted"); Jedis jedis = restarted.client()) {
            assertEquals("1", jedis.get("a"));
            assertNull(jedis.get("b"));
            assertEquals("42", jedis.get("n"));
            long ttl = jedis.ttl("t");
            assertTrue(ttl > 900 && ttl <= 1000, "the deadline survives: " + ttl);
            assertNull(jedis.get("gone"));
            assertEquals("x", jedis.get("m1"));
            assertEquals("y", jedis.get("m2"));
            assertArrayEquals(new byte[] {'\n'}, jedis.get(new byte[] {'\r', '\n', 0}));
            assertEquals(6, jedis.dbSize());
        }
    }

    @Test
    void valuesLargerThanOneWriteSurviveASigkill() throws Exception {
        int mib = 1 << 20;
        int[] sizes = {mib - 1, mib, mib + 1, 2 * mib, 16 * mib};
        Map<String, byte[]> acknowledged = new HashMap<>();
        try (KvNodeProcess killed = startProcess("killed"); Jedis jedis = killed.client()) {
            for (int i = 0; i < sizes.length; i++) {
                byte[] value = pattern(sizes[i], i);
                assertEquals("OK", jedis.set(key(i), value), "SET of " + sizes[i] + " bytes");
                acknowledged.put("big" + i, value);
            }
            byte[] overwritten = pattern(2 * mib + 7, 9); // the first value's record, and a larger one after it
            assertEquals("OK", jedis.set(key(0), overwritten));
            acknowledged.put("big0", overwritten);
            assertEquals(1, jedis.del(key(2)));
            acknowledged.remove("big2");
            assertEquals("OK", jedis.set("small", "after the large ones"));
            killed.kill();
        }
        try (KvNodeProcess restarted = startProcess("restarted"); Jedis jedis = restarted.client()) {
            for (int i = 0; i < sizes.length; i++) {
                byte[] expected = acknowledged.get("big" + i);
                byte[] got = jedis.get(key(i));
                if (expected == null) {
                    assertNull(got, "big" + i + " was deleted");
                } else {
                    assertArrayEquals(expected, got, "big" + i + ": " + (got == null ? "gone" : got.length + " bytes"));
                }
            }
            assertEquals("after the large ones", jedis.get("small"));
            assertEquals(sizes.length, jedis.dbSize());
        }
    }

    /**
     * A file system that fills in the middle of a burst: each write is acknowledged or refused, a refused one is
     * not read back, and once there is room again, what was acknowledged is what a node started on the files has.
     */
    @Test
    void aFullFileSystemLosesNoAcknowledgedWriteAndShowsNoRefusedOne() throws Exception {
        try (SmallFileSystem small = SmallFileSystem.mount(dir.resolve("small"), 192 * 1024)) {
            Map<String, String> acknowledged = new HashMap<>();
            int refused = 0;
            try (RunningKv kv = RunningKv.start("samples.kv.shards = 4", Optional.of(small.path()),
                    KvAppendLog.Fsync.ALWAYS); Jedis jedis = kv.client()) {
                for (int i = 0; i < 10; i++) {
                    String value = (char) ('a' + i) + "x".repeat(60_000);
                    if (set(jedis, "k" + i, value)) {
                        acknowledged.put("k" + i, value);
                    } else {
                        refused++;
                        String key = "k" + i;
                        String read = jedis.get(key);
                        assertTrue(read == null, () -> key + " was refused, yet read back: " + describe(read));
                    }
                }
                assertTrue(refused > 0 && !acknowledged.isEmpty(), "the file system filled in the burst: "
                        + acknowledged.size() + " acknowledged, " + refused + " refused");
                assertAcknowledged(jedis, acknowledged, "before there is room again");
                small.resize(8 << 20);
                for (int i = 0; i < 10; i++) {
                    String value = (char) ('A' + i) + "y".repeat(60_000);
                    assertTrue(set(jedis, "k" + i, value), "k" + i + " with room again");
                    acknowledged.put("k" + i, value);
                }
            }
            try (RunningKv kv = RunningKv.start("samples.kv.shards = 4", Optional.of(small.path()),
                    KvAppendLog.Fsync.ALWAYS); Jedis jedis = kv.client()) {
                assertAcknowledged(jedis, acknowledged, "after the restart");
                assertEquals(acknowledged.size(), jedis.dbSize());
            }
        }
    }

    /**
     * A node killed in the middle of an append leaves a record cut short at the end of its file: the next node
     * replays every record before it and cuts it off, so that what it acknowledges survives the restart after it.
     */
    @Test
    void aRecordCutShortAtTheEndIsCutOffAndWritesAfterItSurvive() throws Exception {
        try (RunningKv kv = start(KvAppendLog.Fsync.ALWAYS, "samples.kv.shards = 1"); Jedis jedis = kv.client()) {
            jedis.set("before", "1");
        }
        Path file = dir.resolve("shard-0.aof");
        byte[] whole = Files.readAllBytes(file);
        Files.write(file, "*3\r\n$3\r\nSET\r\n$3\r\ncut\r\n$10\r\nsho".getBytes(StandardCharsets.US_ASCII),
                StandardOpenOption.APPEND);
        try (RunningKv kv = start(KvAppendLog.Fsync.ALWAYS, "samples.kv.shards = 1"); Jedis jedis = kv.client()) {
            assertEquals("1", jedis.get("before"));
            assertNull(jedis.get("cut"));
            assertEquals(whole.length, Files.size(file), "the cut record is off the file");
            jedis.set("after", "2");
        }
        try (RunningKv kv = start(KvAppendLog.Fsync.ALWAYS, "samples.kv.shards = 1"); Jedis jedis = kv.client()) {
            assertEquals("1", jedis.get("before"));
            assertEquals("2", jedis.get("after"), "acknowledged after the start that cut the record");
        }
    }

    @Test
    void writesOfOneTurnShareAnFsync() throws Exception {
        try (RunningKv kv = start(KvAppendLog.Fsync.ALWAYS, "samples.kv.shards = 1"); Jedis jedis = kv.client()) {
            long before = kv.node.counters.fsyncs.sum();
            Pipeline p = jedis.pipelined();
            for (int i = 0; i < 5000; i++) {
                p.set("k" + i, "v" + i);
            }
            p.sync();
            long fsyncs = kv.node.counters.fsyncs.sum() - before;
            System.out.printf("kv --aof always: 5000 pipelined SETs took %d fsyncs%n", fsyncs);
            assertTrue(fsyncs > 0 && fsyncs < 1000, fsyncs + " fsyncs");
            assertEquals("v4999", jedis.get("k4999"));
        }
    }

    @Test
    void aGrowingFileIsRewrittenAndStillReplays() throws Exception {
        try (RunningKv kv = start(KvAppendLog.Fsync.EVERYSEC, "samples.kv.shards = 2\nsamples.kv.aof-rewrite-size = 16 KiB");
             Jedis jedis = kv.client()) {
            for (int round = 0; round < 20; round++) {
                Pipeline p = jedis.pipelined();
                for (int i = 0; i < 100; i++) {
                    p.set("key" + i, "value-" + round + "-" + i);
                }
                p.sync();
            }
            assertTrue(largestFile() < 64 * 1024, "rewritten: " + largestFile() + " bytes");
        }
        try (RunningKv kv = start(KvAppendLog.Fsync.EVERYSEC, "samples.kv.shards = 2"); Jedis jedis = kv.client()) {
            for (int i = 0; i < 100; i++) {
                assertEquals("value-19-" + i, jedis.get("key" + i));
            }
            assertEquals(100, jedis.dbSize());
        }
    }

    private long largestFile() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.mapToLong(f -> f.toFile().length()).max().orElse(0);
        }
    }

    private static byte[] key(int i) {
        return ("big" + i).getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code size} bytes that differ from those of another {@code seed}, and across the value. */
    private static byte[] pattern(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + seed + (i >>> 20));
        }
        return b;
    }

    private static void assertAcknowledged(Jedis jedis, Map<String, String> acknowledged, String when) {
        acknowledged.forEach((key, value) -> {
            String read = jedis.get(key);
            assertTrue(value.equals(read), () -> key + " " + when + ": " + describe(value) + " acknowledged, "
                    + describe(read) + " read");
        });
    }

    /** A long value by its first character and length. */
    private static String describe(String value) {
        return value == null ? "none" : "'" + value.charAt(0) + "...' of " + value.length();
    }

    /** SET, true for +OK and false for the append-only file's error; anything else fails the test. */
    private static boolean set(Jedis jedis, String key, String value) {
        try {
            assertEquals("OK", jedis.set(key, value));
            return true;
        } catch (JedisDataException e) {
            assertTrue(e.getMessage().startsWith("ERR append-only file"), e.getMessage());
            return false;
        }
    }
}
