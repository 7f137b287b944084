package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The kv sample as its command line runs it: what it says when it listens, and its --stats line. */
@ExtendWith(RequiresIoUring.class)
class KvMainTest {
    private static final Pattern LISTENING = Pattern.compile("kv listening on 127\\.0\\.0\\.1:(\\d+) \\(node "
            + "pekko://kv@127\\.0\\.0\\.1:\\d+, 2 rings, 64 shards, a cache: no --aof\\); Ctrl-C stops it");

    @Test
    void itSaysWhereItListensAndWithStatsCountsItsCommands() throws Exception {
        Process p = ProcessFailuresTest.java(Main.class.getName(), List.of("-During.rings=2", "-Xmx256m"),
                "kv", "--port", "0", "--stats", "300ms");
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            Matcher listening = null;
            while ((line = lines.readLine()) != null && !(listening = LISTENING.matcher(line)).matches()) {
                listening = null;
            }
            assertTrue(listening != null, "no listening line");
            try (Jedis jedis = new Jedis("127.0.0.1", Integer.parseInt(listening.group(1)), 30_000)) {
                for (int i = 0; i < 100; i++) {
                    jedis.set("k" + i, "v");
                }
                assertEquals(100, jedis.dbSize());
            }
            boolean counted = false;
            while (!counted && (line = lines.readLine()) != null) {
                counted = line.matches("kv: [1-9]\\d* commands/s, \\d+ local requests/s, \\d+ via the shard region/s, "
                        + "0 append bytes/s, 0 fsyncs/s");
            }
            assertTrue(counted, "a kv stats line counting the commands");
        } finally {
            p.destroy();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        }
    }
}
