package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kv sample through a real Redis client (Jedis): every command it knows, answered as redis-server documents
 * them (types, errors, TTL rules), one at a time and in pipelines of 10,000.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KvServerTest {
    private RunningKv kv;
    private Jedis jedis;

    @BeforeAll
    void start() throws Exception {
        kv = RunningKv.start("");
        jedis = kv.client();
    }

    @AfterAll
    void stop() {
        if (jedis != null) {
            jedis.close();
        }
        if (kv != null) {
            kv.close();
        }
    }

    /** The raw reply to {@code request}, up to {@code replyLength} bytes. */
    private String raw(String request, int replyLength) throws Exception {
        try (Socket s = new Socket(kv.address.getAddress(), kv.address.getPort())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return new String(s.getInputStream().readNBytes(replyLength), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void pingInlineAndMultibulkAndEcho() throws Exception {
        assertEquals("PONG", jedis.ping());
        assertEquals("hello", jedis.ping("hello"));
        assertEquals("+PONG\r\n$2\r\nhi\r\n", raw("PING\r\nECHO hi\r\n", 15));
        assertArrayEquals("a\r\nb".getBytes(), jedis.echo("a\r\nb".getBytes()));
        assertEquals("-ERR wrong number of arguments for 'ping' command\r\n", raw("PING a b\r\n", 51));
    }

    @Test
    void setAndGetWithTheirOptions() {
        assertNull(jedis.get("set:missing"));
        assertEquals("OK", jedis.set("set:a", "1"));
        assertEquals("1", jedis.get("set:a"));
        assertNull(jedis.set("set:a", "2", SetParams.setParams().nx()));
        assertEquals("1", jedis.get("set:a"));
        assertNull(jedis.set("set:b", "2", SetParams.setParams().xx()));
        assertNull(jedis.get("set:b"));
        assertEquals("OK", jedis.set("set:a", "3", SetParams.setParams().xx().ex(100)));
        assertEquals("3", jedis.get("set:a"));
        long ttl = jedis.ttl("set:a");
        assertTrue(ttl > 95 && ttl <= 100, "ttl " + ttl);
        assertEquals("OK", jedis.set("set:a", "4"));
        assertEquals(-1, jedis.ttl("set:a")); // a plain SET clears the TTL
        assertEquals("OK", jedis.set("set:c", "x", SetParams.setParams().px(100_000)));
        long pttl = jedis.pttl("set:c");
        assertTrue(pttl > 90_000 && pttl <= 100_000, "pttl " + pttl);
        assertEquals("ERR invalid expire time in 'set' command",
                assertThrows(JedisDataException.class, () -> jedis.set("set:d", "x", SetParams.setParams().ex(0)))
                        .getMessage());
        assertEquals("ERR syntax error", assertThrows(JedisDataException.class,
                () -> jedis.sendCommand(Protocol.Command.SET, "set:d", "x", "NX", "XX")).getMessage());
        assertEquals("ERR syntax error", assertThrows(JedisDataException.class,
                () -> jedis.sendCommand(Protocol.Command.SET, "set:d", "x", "EX")).getMessage());
        assertEquals("ERR value is not an integer or out of range", assertThrows(JedisDataException.class,
                () -> jedis.sendCommand(Protocol.Command.SET, "set:d", "x", "EX", "ten")).getMessage());
    }

    @Test
    void keysExpireAsRedisSays() throws Exception {
        assertEquals(-2, jedis.ttl("ttl:none"));
        jedis.set("ttl:a", "v");
        assertEquals(-1, jedis.ttl("ttl:a"));
        assertEquals(1, jedis.expire("ttl:a", 50));
        assertEquals(50, jedis.ttl("ttl:a"));
        assertEquals(0, jedis.expire("ttl:none", 50));
        assertEquals(1, jedis.expire("ttl:a", -1)); // a deadline in the past deletes the key
        assertNull(jedis.get("ttl:a"));
        assertEquals(-2, jedis.ttl("ttl:a"));
        jedis.set("ttl:b", "v", SetParams.setParams().px(50));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (jedis.get("ttl:b") != null && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertNull(jedis.get("ttl:b"));
        assertEquals(0, jedis.exists("ttl:b") ? 1 : 0);
    }

    @Test
    void countersIncrementAndRefuseWhatIsNotAnInteger() {
        assertEquals(1, jedis.incr("n:a"));
        assertEquals(11, jedis.incrBy("n:a", 10));
        assertEquals(10, jedis.decr("n:a"));
        assertEquals(-1, jedis.decr("n:b"));
        jedis.set("n:c", "abc");
        assertEquals("ERR value is not an integer or out of range",
                assertThrows(JedisDataException.class, () -> jedis.incr("n:c")).getMessage());
        jedis.set("n:d", String.valueOf(Long.MAX_VALUE));
        assertEquals("ERR increment or decrement would overflow",
                assertThrows(JedisDataException.class, () -> jedis.incr("n:d")).getMessage());
        jedis.set("n:e", "007");
        assertThrows(JedisDataException.class, () -> jedis.incr("n:e"));
        jedis.set("n:f", "5");
        jedis.expire("n:f", 100);
        assertEquals(6, jedis.incr("n:f"));
        assertTrue(jedis.ttl("n:f") > 0, "INCR keeps the TTL");
    }

    @Test
    void severalKeysAtOnce() {
        assertEquals("OK", jedis.mset("m:a", "1", "m:b", "2", "m:c", "3"));
        assertEquals(Arrays.asList("1", "2", null, "3"), jedis.mget("m:a", "m:b", "m:none", "m:c"));
        assertEquals(3, jedis.exists("m:a", "m:a", "m:b", "m:none"));
        assertEquals(2, jedis.del("m:a", "m:b", "m:none", "m:a"));
        assertEquals(1, jedis.del("m:c"));
        assertEquals("ERR wrong number of arguments for 'mset' command", assertThrows(JedisDataException.class,
                () -> jedis.sendCommand(Protocol.Command.MSET, "m:a", "1", "m:b")).getMessage());
    }

    @Test
    void dbsizeCountsEveryShard() {
        long before = jedis.dbSize();
        for (int i = 0; i < 200; i++) {
            jedis.set("dbsize:" + i, "v");
        }
        assertEquals(before + 200, jedis.dbSize());
        jedis.del("dbsize:0");
        assertEquals(before + 199, jedis.dbSize());
    }

    @Test
    void serverCommandsAnswerAsRedisServerDoes() throws Exception {
        assertTrue(jedis.info().contains("redis_version:"));
        Map<String, String> config = jedis.configGet("save", "appendonly");
        assertEquals(Map.of("save", "", "appendonly", "no"), config);
        assertEquals(Map.of(), jedis.configGet("no-such-parameter"));
        assertTrue(jedis.configGet("*").containsKey("maxmemory"));
        assertEquals(jedis.sendCommand(Protocol.Command.COMMAND, "COUNT"),
                (long) ((List<?>) jedis.sendCommand(Protocol.Command.COMMAND)).size());
        assertEquals("OK", jedis.select(0));
        assertEquals("ERR DB index is out of range",
                assertThrows(JedisDataException.class, () -> jedis.select(1)).getMessage());
        assertEquals("OK", jedis.clientSetname("test-client"));
        assertEquals("test-client", jedis.clientGetname());
        assertEquals("+OK\r\n", raw("QUIT\r\nPING\r\n", 100)); // closed after OK: PING not answered
        assertEquals("ERR unknown command 'NOPE', with args beginning with: 'a' ",
                assertThrows(JedisDataException.class,
                        () -> jedis.sendCommand(() -> "NOPE".getBytes(), "a")).getMessage());
        assertEquals("ERR wrong number of arguments for 'get' command",
                assertThrows(JedisDataException.class, () -> jedis.sendCommand(Protocol.Command.GET)).getMessage());
    }

    @Test
    void binaryKeysAndValuesWithCrlf() {
        byte[] key = {'k', '\r', '\n', 0, (byte) 0xff};
        byte[] value = {'\r', '\n', '\r', '\n', 0};
        assertEquals("OK", jedis.set(key, value));
        assertArrayEquals(value, jedis.get(key));
        assertTrue(jedis.exists(key));
    }

    @Test
    void pipelinesOfTenThousandAnswerInOrder() {
        try (Jedis client = kv.client()) {
            Pipeline p = client.pipelined();
            for (int i = 0; i < 10_000; i++) {
                p.set("p:" + i, "v" + i);
            }
            List<Response<String>> gets = new ArrayList<>();
            List<Response<Long>> incrs = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                gets.add(p.get("p:" + i));
                incrs.add(p.incr("p:counter"));
            }
            p.sync();
            for (int i = 0; i < 10_000; i++) {
                assertEquals("v" + i, gets.get(i).get());
                assertEquals(i + 1, incrs.get(i).get()); // in order, though the keys are on 64 shards
            }
        }
    }

    @Test
    void quitClosesAfterTheRepliesBeforeIt() throws Exception {
        try (Socket s = new Socket(kv.address.getAddress(), kv.address.getPort())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write("SET q:a 1\r\nGET q:a\r\nQUIT\r\nGET q:a\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            assertEquals("+OK\r\n$1\r\n1\r\n+OK\r\n", new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        }
        assertFalse(jedis.get("q:a").isEmpty());
    }
}
