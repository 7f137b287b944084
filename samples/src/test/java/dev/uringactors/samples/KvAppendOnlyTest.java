package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.SetParams;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
