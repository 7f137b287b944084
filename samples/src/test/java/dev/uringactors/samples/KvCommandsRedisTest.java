package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kv sample against a real redis-server 7.0 (started by the test, on PATH as .ci/run installs it): the same
 * raw bytes to both, the replies compared byte for byte, a table of cases per command. Where the replies may
 * rightly differ (INFO's figures, CONFIG GET's order and the parameters the sample has, COMMAND's list of
 * commands), the shape is compared instead. Both run with a 1 MiB limit on a bulk string, so that the refusals
 * of a value too large can be compared too.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KvCommandsRedisTest {
    private static final int MAX_BULK = 1024 * 1024;
    private static final String KV_LIMITS = "samples.kv.max-bulk-length = 1 MiB";
    private static final String FLUSHALL = Resp.multibulk("FLUSHALL");

    private RealRedis redis;
    private RunningKv kv;

    @TempDir
    Path aof;

    @BeforeAll
    void start() throws Exception {
        redis = RealRedis.start("--proto-max-bulk-len", "1mb");
        kv = RunningKv.start(KV_LIMITS);
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (kv != null) {
                kv.close();
            }
        } finally {
            if (redis != null) {
                redis.close(); // even when the node did not stop in time: no redis-server is left behind
            }
        }
    }

    /** Commands as inline lines, each ended by CRLF. */
    private static String in(String... lines) {
        return Arrays.stream(lines).map(l -> l + "\r\n").collect(Collectors.joining());
    }

    private static Arguments same(String name, String request) {
        return Arguments.of(name, request, false, false);
    }

    /** A case whose array replies are compared as sets (KEYS: in the order of each store's hash table). */
    private static Arguments sameUnordered(String name, String request) {
        return Arguments.of(name, request, true, false);
    }

    /** A case that ends with a protocol error: no QUIT is sent after it, the server closes. */
    private static Arguments sameThenClosed(String name, String request) {
        return Arguments.of(name, request, false, true);
    }

    static Stream<Arguments> cases() {
        String keys = Resp.multibulk("MSET", "kk", "1", "k1", "1", "k2", "1", "ka", "1", "kb", "1", "kc", "1",
                "kz", "1", "k*", "1", "k?", "1", "k[", "1", "k\\", "1", "k]", "1", "hello", "1", "hallo", "1",
                "hxllo", "1", "hllo", "1", "heeeello", "1", "a", "1", "b", "1", "", "1", "\u00ff", "1", "x y", "1",
                "\u0080", "1");
        StringBuilder patterns = new StringBuilder(keys);
        for (String p : List.of("*", "k*", "k?", "k[a-c]", "k[^a]", "k[c-a]", "k\\*", "k\\?", "k[\\]]", "k[]]",
                "h?llo", "h*llo", "h[ae]llo", "h[^e]llo", "h[a-b]llo", "[", "k[", "\\", "*[", "k[a-", "k[\\",
                "***", "k**?", "", "[a-\u00ff]", "[\u0080-\u00ff]", "x y", "*\\", "k\\", "[^]", "[]", "h*l*o",
                "*ll*", "?", "??", "*?*?*?*?*?*?*?*", "h*e*l*l*o", "[k][k]", "k[^", "[^a-k]*")) {
            patterns.append(Resp.multibulk("KEYS", p));
        }
        String big = "x".repeat(MAX_BULK);
        Stream<Arguments> framing = Stream.of("*-0\r\n", "*01\r\n", "*1\r\n$04\r\n", "*1\r\n$+4\r\n",
                "*1\r\n\u0001\r\n", "*1\r\n\n\r\n", "*1\r\n\u00ff\r\n", "*9223372036854775808\r\n", "*\r\n",
                "*1\r\n$\r\n", "*1\r\n$-1\r\n", "*x\r\n", "*2\r\n$4\r\nECHO\r\n:1\r\n",
                "PING\r\n" + fill("*1\0", 64 * 1024 + 1), "PING\r\n*1\r\n" + fill("$4\0", 64 * 1024 + 1),
                "PING\r\n" + fill("*1", 64 * 1024 + 1)).map(bad -> sameThenClosed("a bad multibulk header: "
                + Resp.show(Resp.bytes(bad.length() > 40 ? bad.substring(0, 20) + "..." : bad)),
                bad.startsWith("PING") ? bad : in("PING") + bad));
        return Stream.concat(framing, Stream.of(
                same("EXPIRE NX XX GT LT on keys with and without a TTL", in("SET k v", "EXPIRE k 100 NX",
                        "EXPIRE k 100 NX", "TTL k", "EXPIRE k 100 XX", "EXPIRE k 50 GT", "EXPIRE k 200 GT", "TTL k",
                        "EXPIRE k 300 LT", "EXPIRE k 10 LT", "TTL k", "SET p v", "EXPIRE p 10 GT", "TTL p",
                        "EXPIRE p 10 XX", "EXPIRE p 10 LT", "TTL p", "expire p 20 xx gt", "TTL p",
                        "EXPIRE p 5 xx lt", "TTL p", "PEXPIRE p 100000 GT", "TTL p", "PEXPIRE p 100000 nx")),
                same("EXPIRE's conflicting and unknown options", in("SET k v", "EXPIRE k 10 NX XX",
                        "EXPIRE k 10 GT LT", "EXPIRE k 10 NX GT", "EXPIRE k 10 NX LT", "EXPIRE k 10 XX LT GT",
                        "EXPIRE k 10 LT GT NX", "EXPIRE k 10 FOO", "EXPIRE k 10 NX FOO", "EXPIRE k 10 20",
                        "EXPIRE k abc FOO", "EXPIRE k abc NX", "EXPIRE k 10 nx nx", "EXPIRE missing 10 NX XX",
                        "EXPIRE missing 10 NX", "EXPIRE k", "PEXPIRE k 100 FOO", "PEXPIRE k 100 nx xx",
                        "PEXPIRE k 100 gt lt", "TTL k")),
                same("EXPIRE's deadlines in the past and beyond a long", in("SET q v", "EXPIRE q -1 XX",
                        "EXISTS q", "EXPIRE q -1 GT", "EXISTS q", "EXPIRE q -1 NX", "EXISTS q", "SET r v EX 100",
                        "EXPIRE r -1 GT", "EXISTS r", "PEXPIRE r -1 LT", "EXISTS r", "SET k v",
                        "EXPIRE k 9223372036854775807", "PEXPIRE k 9223372036854775807", "EXPIRE k 9223372036854775",
                        "EXPIRE k -9223372036854775808", "EXISTS k", "SET k v", "PEXPIRE k -9223372036854775808",
                        "EXISTS k", "SET k v", "EXPIRE k 0", "EXISTS k")),
                same("GETEX with and without options", in("SET g v", "GETEX g", "TTL g", "GETEX g EX 100", "TTL g",
                        "GETEX g PERSIST", "TTL g", "GETEX g PX 5000", "TTL g", "GETEX g exat 1", "EXISTS g",
                        "SET g v", "GETEX g PXAT 1", "EXISTS g", "GETEX missing EX 0", "GETEX missing EX abc",
                        "GETEX missing FOO", "GETEX missing PERSIST", "GETEX")),
                same("GETEX's bad options", in("SET g v", "GETEX g EX 0", "GETEX g EX -1", "GETEX g EX abc",
                        "GETEX g EX", "GETEX g EX 10 PX 10", "GETEX g EX 10 EX 20", "TTL g", "GETEX g PERSIST EX 10",
                        "GETEX g EX 10 PERSIST", "GETEX g PERSIST PERSIST", "TTL g", "GETEX g KEEPTTL", "GETEX g NX",
                        "GETEX g GET", "GETEX g EX 9223372036854775", "GETEX g EX 9223372036854776",
                        "GETEX g PX 9223372036854775807", "GETEX g EXAT 9223372036854776", "GETEX g PXAT 0",
                        "GETEX g PXAT 99999999999999", "EXISTS g")),
                same("SETEX and PSETEX with good and bad TTLs", in("SETEX s 100 v", "TTL s", "GET s",
                        "SETEX s 0 v", "SETEX s -5 v", "SETEX s abc v", "SETEX s 9223372036854775807 v",
                        "SETEX s 9223372036854775 v", "SETEX s 1.5 v", "SETEX s 10", "SETEX s 10 v x",
                        "PSETEX s 0 v", "PSETEX s 100000 w", "TTL s", "PSETEX s 9223372036854775807 v", "GET s",
                        "psetex s -1 v", "SET s v EX 100", "SETEX s 50 w", "TTL s")),
                same("SET's options parsed as redis parses them", in("SET x v EX 10 EX 20", "TTL x",
                        "SET x v EX abc FOO", "SET x v EX abc", "SET x v PX 10 EX 10", "SET x v KEEPTTL EX 10",
                        "SET x v EX 10 KEEPTTL", "SET x v NX XX", "SET x v XX NX", "SET x v NX NX", "SET x v GET GET",
                        "SET x v EX 0", "SET x v EXAT 0", "SET x v PXAT 1", "EXISTS x", "SET x v EX 9223372036854775",
                        "SET x v PX 9223372036854775807", "SET x v EXAT 9223372036854776", "SET x v EX",
                        "SET y v nx get", "SET y w xx get", "GET y", "SET y z KEEPTTL KEEPTTL", "SET y v PERSIST",
                        "SET y v EX 100", "SET y w KEEPTTL", "TTL y", "SET y v GET EX 10 NX", "TTL y")),
                same("APPEND STRLEN GETDEL on missing and existing keys", in("APPEND a hello",
                        "APPEND a \" world\"", "GET a", "STRLEN a", "STRLEN missing", "APPEND e \"\"", "EXISTS e",
                        "STRLEN e", "SET t v EX 100", "APPEND t w", "TTL t", "GET t", "SET n 10", "APPEND n 5",
                        "INCR n", "GETDEL n", "GETDEL n", "EXISTS n", "SET d v EX 100", "GETDEL d", "TTL d", "STRLEN",
                        "APPEND a", "GETDEL", "GETDEL a b", "STRLEN a b", "GETDEL missing")),
                sameUnordered("KEYS patterns as redis's stringmatch", patterns.toString()),
                same("FLUSHDB and FLUSHALL with ASYNC and SYNC", in("SET a 1", "SET b 2", "FLUSHDB", "DBSIZE",
                        "KEYS *", "SET a 1", "FLUSHALL ASYNC", "DBSIZE", "FLUSHALL sync", "FLUSHDB async",
                        "FLUSHDB SYNC", "FLUSHALL foo", "FLUSHALL a b", "FLUSHDB a b", "SET a 1", "flushall",
                        "GET a")),
                same("inline requests with quotes and escapes", in("set \"a b\" c", "get \"a b\"")
                        + Resp.multibulk("GET", "a b")
                        + in("set 'x\\'y' \"\\x41\\n\\r\\t\\b\\a\\\\\\\"\\q\"", "get \"x'y\"", "strlen \"x'y\"",
                        "echo '\\n'", "echo \"\\xzz\"", "echo \"\\x4\"", "echo \"\\x4a\"",
                        "echo \"\\X41\"", "echo \"\\xFf\"", "echo \"\"", "echo ''", "echo \"\" \"\"", "  \t ",
                        "echo x ", "", "echo a\"b c\" ", "echo a'b c'", "echo a\u000bb", "echo \"a\"\u000bb",
                        "echo \u000b x", "echo a\rb", "echo \"a\"\r", "echo \u00ff\u00fe", "\techo\t\"t\"\t",
                        "echo \"'\"", "echo '\"'", "echo \"a\\\\\"")
                        + "echo lf\n" + Resp.multibulk("ECHO", "m") + "echo i\r\n"),
                sameThenClosed("inline: a closing quote not followed by a space", in("PING", "set \"a b\"c d",
                        "PING")),
                sameThenClosed("inline: an unbalanced double quote", in("SET u 1", "set \"abc d", "GET u")),
                sameThenClosed("inline: an unbalanced single quote", in("PING", "set 'abc d", "PING")),
                sameThenClosed("inline: an escaped closing quote", in("echo \"a\\\"", "PING")),
                sameThenClosed("inline: quotes back to back", in("echo \"a\"'b'", "PING")),
                sameThenClosed("inline: a word after a closing single quote", in("echo 'a'b", "PING")),
                sameThenClosed("inline: a backslash before a closing single quote escapes it", in("echo '\\\\'",
                        "PING")),
                sameThenClosed("inline: a backslash ending a quoted word", in("echo \"a\\")),
                sameThenClosed("inline: a NUL holds the line until it is too big", fill("echo a\0b\r\nPING\r\n",
                        64 * 1024 + 1)),
                same("unknown commands and subcommands and wrong arities", in("NOPE " + "a".repeat(99) + " "
                                + "b".repeat(54) + " cccccccc", "NOPE", "CONFIG nope x", "CONFIG", "CLIENT",
                        "CLIENT nope", "COMMAND nope", "COMMAND COUNT x", "CLIENT SETNAME", "CLIENT GETNAME x",
                        "CLIENT ID x", "CONFIG GET", "SELECT", "SELECT 16", "SELECT x", "PING a b", "ECHO",
                        "DBSIZE x", "GET", "SET k", "INCRBY k", "MSET a", "MSET a 1 b", "MGET", "DEL", "KEYS",
                        "TTL", "EXPIRE k", "PEXPIRE", "FLUSHALL SYNC")
                        + Resp.multibulk("NOPE", "a\0b") + Resp.multibulk("NO\0PE") + Resp.multibulk("NO\r\nE")
                        + Resp.multibulk("CONFIG", "a\0b") + Resp.multibulk("NOPE", "\u00ff\u0080")
                        + Resp.multibulk("NOPE", "x".repeat(200), "y") + Resp.multibulk("z".repeat(200))
                        + Resp.multibulk("NOPE", "", "", "a") + Resp.multibulk("SET", "k", "v", "NX\0junk")
                        + Resp.multibulk("EXPIRE", "k", "10", "xx\0y") + Resp.multibulk("FLUSHDB", "sync\0")
                        + Resp.multibulk("GETEX", "k", "persist\0")),
                same("COMMAND INFO, DOCS and COUNT", in("COMMAND INFO nosuch", "COMMAND INFO GET nosuch strlen",
                        "COMMAND INFO expire getex keys flushall setex psetex getdel append", "COMMAND DOCS nosuch",
                        "COMMAND COUNT x", "COMMAND INFO config|get client|setname nosuch|x", "command info Set")),
                same("CONFIG GET of one parameter and of patterns", in("CONFIG GET appendonly",
                        "CONFIG GET APPENDONLY", "CONFIG GET nosuch", "CONFIG GET a[p]pendonly", "CONFIG GET save",
                        "CONFIG GET proto-max-bulk-len", "CONFIG GET maxmemory-policy", "CONFIG GET port2",
                        "CONFIG GET maxmemory maxmemory MAXMEMORY", "CONFIG GET *nosuch* save", "CONFIG GET timeout",
                        "CONFIG GET maxmemory", "CONFIG GET APPENDON[L]Y", "CONFIG GET appendonl?")
                        + Resp.multibulk("CONFIG", "GET", "save\0x") + Resp.multibulk("CONFIG", "GET", "appendon*\0x")
                        + Resp.multibulk("CONFIG", "GET", "save", "SAVE", "sav[e]", "sav?")),
                same("INFO of a section that is not there and of the keyspace", in("INFO nosuch", "INFO keyspace",
                        "INFO KEYSPACE nosuch", "SET a 1", "SET b 2", "INFO keyspace", "info Keyspace keyspace",
                        "INFO nosuch keyspace")),
                sameThenClosed("a value beyond proto-max-bulk-len", in("PING") + "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$"
                        + (MAX_BULK + 1) + "\r\n"),
                same("APPEND beyond proto-max-bulk-len", Resp.multibulk("SET", "k", big)
                        + in("APPEND k y", "STRLEN k", "APPEND k \"\"", "STRLEN k") + Resp.multibulk("APPEND", "n", big)
                        + in("APPEND n x", "STRLEN n")),
                same("multibulk framing as redis-server reads it", "*1\r\n$4\r\nPINGxx"
                        + "*2\r\n$4\r\nECHO\r\n$3\r\na\rb\r\n*1\rX$4\r\nPING\r\n*0\r\n*-1\r\n"
                        + "*-9223372036854775808\r\n*1\r\n$0\r\n\r\n*1\r\n$4\r\nPI\0G\r\n*1\r\n$4\r\nPING\r\n"),
                same("integers as redis-server's string2ll reads them", in("SET n 1", "INCRBY n -0", "INCRBY n +1",
                        "INCRBY n 007", "INCRBY n \" 1\"", "INCRBY n 9223372036854775807",
                        "INCRBY n -9223372036854775808", "DECRBY n -9223372036854775808", "GET n",
                        "INCRBY n 99999999999999999999", "INCRBY n 1.0", "INCRBY n \"\"", "SET n -0", "INCR n",
                        "SET n \" 5\"", "INCR n", "SET n 5x", "INCR n", "SET n -9223372036854775808", "DECR n",
                        "SET n 00", "INCR n", "SET n 0", "INCR n", "DECRBY n 5", "DECR n", "EXPIRE n -0")),
                same("connection commands", in("PING", "PING hello", "PING \"a b\"", "ECHO", "ECHO a b", "ping",
                        "PiNg", "CLIENT SETNAME \"\"", "CLIENT GETNAME", "CLIENT SETNAME \"a b\"",
                        "CLIENT SETNAME a\u007fb", "CLIENT SETNAME abc", "CLIENT GETNAME", "client setname x y",
                        "CLIENT HELP x", "CONFIG HELP x", "COMMAND HELP x", "SELECT -1", "SELECT 0",
                        "SELECT 99999999999999999999", "SELECT 00", "SELECT \" 0\"", "select 0 1", "TTL missing",
                        "PTTL missing", "SET k v", "TTL k", "PTTL k", "TTL k x", "MGET a b", "SET a 1", "MGET a b a",
                        "DEL", "EXISTS", "MSET a 1 b 2", "MGET a b", "DBSIZE", "SET c 2 PXAT 1", "EXISTS c", "DBSIZE")),
                sameUnordered("KEYS of the empty key and of expired keys", in("SET a 1", "SET b 2 PXAT 1", "SET c 3",
                        "SET \"\" v", "KEYS *", "KEYS \"\"", "KEYS **", "KEYS ?*", "KEYS *?", "GET \"\"", "EXISTS b",
                        "DBSIZE"))));
    }

    /** {@code head}, then x up to {@code length} bytes. */
    private static String fill(String head, int length) {
        return head + "x".repeat(length - head.length());
    }

    private void flushBoth() throws IOException {
        assertEquals("+OK\r\n", new String(Resp.exchange(redis.port, Resp.bytes(FLUSHALL), false),
                StandardCharsets.ISO_8859_1).substring(0, 5));
        byte[] kvFlushed = Resp.exchange(kv.address.getPort(), Resp.bytes(FLUSHALL), false);
        assertEquals("+OK\r\n+OK\r\n", new String(kvFlushed, StandardCharsets.ISO_8859_1),
                "the kv sample's FLUSHALL before the case");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void answersAsRedisServerDoes(String name, String request, boolean unordered, boolean closes) throws Exception {
        flushBoth();
        byte[] expected = Resp.exchange(redis.port, Resp.bytes(request), closes);
        List<byte[]> replies = Resp.split(expected);
        String last = new String(replies.get(replies.size() - 1), StandardCharsets.ISO_8859_1);
        assertTrue(closes ? last.startsWith("-ERR Protocol error: ") : last.equals("+OK\r\n"),
                "the case as meant: redis-server's last reply is " + (closes ? "a protocol error" : "QUIT's OK")
                        + ", not " + Resp.show(replies.get(replies.size() - 1)));
        byte[] got = Resp.exchange(kv.address.getPort(), Resp.bytes(request), closes);
        if (unordered) {
            expected = sortArrays(expected);
            got = sortArrays(got);
        }
        assertEquals(Resp.show(expected), Resp.show(got), name);
    }

    private static byte[] sortArrays(byte[] stream) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        Resp.split(stream).forEach(r -> out.writeBytes(Resp.sorted(r)));
        return out.toByteArray();
    }

    // ---- the shape of replies whose figures rightly differ ----

    private static Object ask(int port, String... args) throws IOException {
        List<byte[]> replies = Resp.split(Resp.exchange(port, Resp.bytes(Resp.multibulk(args)), false));
        assertEquals(2, replies.size(), "a reply and QUIT's OK");
        return Resp.parse(replies.get(0));
    }

    /** INFO's text as sections: header to the fields in their order. */
    private static Map<String, Map<String, String>> sections(String info) {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        Map<String, String> current = null;
        for (String line : info.split("\r\n", -1)) {
            if (line.startsWith("# ")) {
                current = new LinkedHashMap<>();
                assertTrue(sections.put(line.substring(2), current) == null, "section " + line + " once");
            } else if (!line.isEmpty()) {
                assertNotNull(current, "a field before any section: " + line);
                int colon = line.indexOf(':');
                assertTrue(colon > 0, "not a field: " + line);
                current.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        assertTrue(info.endsWith("\r\n") && !info.endsWith("\r\n\r\n"), "no blank line at the end: " + info);
        return sections;
    }

    private Map<String, Map<String, String>> kvInfo(String... sections) throws IOException {
        String[] args = Stream.concat(Stream.of("INFO"), Arrays.stream(sections)).toArray(String[]::new);
        return sections((String) ask(kv.address.getPort(), args));
    }

    private static final List<String> KV_SECTIONS = List.of("Server", "Clients", "Memory", "Persistence", "Stats",
            "Replication", "CPU", "Cluster", "Keyspace");
    /** Fields of the sample's own, not in redis-server's INFO. */
    private static final Set<String> KV_FIELDS = Set.of("server_name", "cluster_members_up",
            "cluster_shards_local");

    @Test
    void infoHasRedisSectionsAndFieldsWithRealFigures() throws Exception {
        flushBoth();
        Map<String, Map<String, String>> redisAll = sections((String) ask(redis.port, "INFO", "everything"));
        for (String which : List.of("", "default", "all", "everything", "DEFAULT")) {
            Map<String, Map<String, String>> info = which.isEmpty() ? kvInfo() : kvInfo(which);
            assertEquals(KV_SECTIONS, List.copyOf(info.keySet()), "INFO " + which);
            List<String> redisOrder = new ArrayList<>(redisAll.keySet());
            redisOrder.retainAll(info.keySet());
            assertEquals(redisOrder, List.copyOf(info.keySet()), "in redis-server's order");
            info.forEach((section, fields) -> fields.keySet().forEach(f -> assertTrue(KV_FIELDS.contains(f)
                    || redisAll.get(section).containsKey(f), section + " field " + f + " is not redis-server's")));
        }
        assertEquals(List.of("CPU"), List.copyOf(kvInfo("cpu").keySet()));
        assertEquals(List.of("Clients", "CPU"), List.copyOf(kvInfo("cpu", "CLIENTS", "cpu").keySet()));
        assertEquals(List.of("Memory"), List.copyOf(kvInfo("memory").keySet()));

        Map<String, String> server = kvInfo("server").get("Server");
        assertTrue(server.get("redis_version").startsWith("7.0."), server.toString());
        assertEquals(String.valueOf(kv.address.getPort()), server.get("tcp_port"));
        assertEquals(String.valueOf(ProcessHandle.current().pid()), server.get("process_id"));

        Map<String, String> memory = kvInfo("memory").get("Memory");
        long used = Long.parseLong(memory.get("used_memory"));
        long rss = Long.parseLong(memory.get("used_memory_rss"));
        long total = Long.parseLong(memory.get("total_system_memory"));
        assertTrue(used > 0 && used <= Runtime.getRuntime().maxMemory(), memory.toString());
        assertTrue(rss > 0 && rss < total, memory.toString());
        assertEquals(human(used), memory.get("used_memory_human"));
        assertEquals(human(rss), memory.get("used_memory_rss_human"));
        assertTrue(Long.parseLong(memory.get("used_memory_peak")) >= used, memory.toString());

        Map<String, String> cpu = kvInfo("cpu").get("CPU");
        Pattern seconds = Pattern.compile("\\d+\\.\\d{6}");
        cpu.values().forEach(v -> assertTrue(seconds.matcher(v).matches(), cpu.toString()));
        double before = Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
        long commandsBefore = Long.parseLong(kvInfo("stats").get("Stats").get("total_commands_processed"));
        byte[] pings = Resp.bytes("PING\r\n".repeat(20_000));
        await("the CPU time grows while the node answers PINGs", () -> {
            try {
                Resp.exchange(kv.address.getPort(), pings, false);
                Map<String, String> now = kvInfo("cpu").get("CPU");
                return Double.parseDouble(now.get("used_cpu_user")) + Double.parseDouble(now.get("used_cpu_sys"))
                        > before;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        long commandsAfter = Long.parseLong(kvInfo("stats").get("Stats").get("total_commands_processed"));
        assertTrue(commandsAfter >= commandsBefore + 20_000, commandsBefore + " then " + commandsAfter);

        ask(kv.address.getPort(), "MSET", "a", "1", "b", "2", "c", "3");
        ask(kv.address.getPort(), "EXPIRE", "c", "100");
        String db0 = kvInfo("keyspace").get("Keyspace").get("db0");
        Matcher m = Pattern.compile("keys=3,expires=1,avg_ttl=(\\d+)").matcher(db0);
        assertTrue(m.matches(), db0);
        long avgTtl = Long.parseLong(m.group(1));
        assertTrue(avgTtl > 90_000 && avgTtl <= 100_000, db0);
    }

    /** redis-server's bytesToHuman. */
    private static String human(long n) {
        String[] units = {"K", "M", "G", "T", "P"};
        if (n < 1024) {
            return n + "B";
        }
        double d = n;
        int unit = -1;
        while (d >= 1024 && unit < units.length - 1) {
            d /= 1024;
            unit++;
        }
        return String.format(java.util.Locale.ROOT, "%.2f%s", d, units[unit]);
    }

    @Test
    void infoCountsTheConnectedClients() throws Exception {
        try (Socket a = new Socket("127.0.0.1", kv.address.getPort());
             Socket b = new Socket("127.0.0.1", kv.address.getPort())) {
            for (Socket s : List.of(a, b)) {
                s.setSoTimeout(30_000);
                s.getOutputStream().write(Resp.bytes("PING\r\n"));
                assertEquals("+PONG\r\n", new String(s.getInputStream().readNBytes(7), StandardCharsets.US_ASCII));
            }
            long open = connectedClients();
            assertTrue(open >= 3, "two open and the one asking: " + open);
            a.close();
            b.close();
            await("the two closed connections are no longer counted", () -> {
                try {
                    return connectedClients() <= open - 2;
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
        }
    }

    private long connectedClients() throws IOException {
        return Long.parseLong(kvInfo("clients").get("Clients").get("connected_clients"));
    }

    private static void await(String what, BooleanSupplier condition) {
        await(what, 30, condition);
    }

    private static void await(String what, long seconds, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within " + seconds + " s: " + what);
            LockSupport.parkNanos(10_000_000L);
        }
    }

    private static final Set<String> CONTAINERS = Set.of("client", "config", "command");

    @Test
    void commandListsExactlyTheCommandsAnswered() throws Exception {
        List<?> all = (List<?>) ask(kv.address.getPort(), "COMMAND");
        long count = (Long) ask(kv.address.getPort(), "COMMAND", "COUNT");
        assertEquals(all.size(), count, "COMMAND COUNT is the length of COMMAND");
        List<String> names = all.stream().map(e -> (String) ((List<?>) e).get(0)).toList();
        assertEquals(names.size(), new HashSet<>(names).size(), "each once: " + names);
        assertEquals(all, ask(kv.address.getPort(), "COMMAND", "INFO"), "COMMAND INFO of no name is COMMAND");
        assertTrue(names.containsAll(List.of("get", "set", "expire", "getex", "keys", "flushall", "info")),
                names.toString());
        for (String name : names) {
            if (name.equals("quit")) {
                assertEquals("+OK\r\n", new String(Resp.exchange(kv.address.getPort(), Resp.bytes("QUIT\r\nPING\r\n"),
                        true), StandardCharsets.US_ASCII), "QUIT answers OK and closes");
                continue;
            }
            Object reply = ask(kv.address.getPort(), name.toUpperCase(java.util.Locale.ROOT));
            assertFalse(reply instanceof String s && s.startsWith("-ERR unknown command"), name + ": " + reply);
            List<?> ours = (List<?>) ((List<?>) ask(kv.address.getPort(), "COMMAND", "INFO", name)).get(0);
            List<?> theirs = (List<?>) ((List<?>) ask(redis.port, "COMMAND", "INFO", name)).get(0);
            assertNotNull(theirs, name + " is not a redis-server command");
            if (CONTAINERS.contains(name)) {
                assertEquals(theirs.subList(0, 9), ours.subList(0, 9), name);
                List<?> subcommands = (List<?>) ours.get(9);
                assertFalse(subcommands.isEmpty(), name);
                for (Object sub : subcommands) {
                    assertTrue(((List<?>) theirs.get(9)).contains(sub), name + ": " + sub);
                    String[] parts = ((String) ((List<?>) sub).get(0)).split("\\|");
                    Object answer = ask(kv.address.getPort(), parts[0], parts[1]);
                    assertFalse(answer instanceof String s && s.startsWith("-ERR unknown"), sub + ": " + answer);
                }
            } else {
                assertEquals(theirs, ours, name);
            }
        }
        for (String unanswered : List.of("hset", "lpush", "subscribe", "multi", "auth", "setrange", "incrbyfloat",
                "getrange", "rename", "scan")) {
            assertFalse(names.contains(unanswered), unanswered);
            Object reply = ask(kv.address.getPort(), unanswered, "a", "b");
            assertTrue(reply instanceof String s && s.startsWith("-ERR unknown command '" + unanswered + "'"),
                    unanswered + ": " + reply);
        }
    }

    @Test
    void helpListsTheSubcommandsAnsweredInRedisServersWords() throws Exception {
        for (String container : List.of("client", "config", "command")) {
            List<?> ours = (List<?>) ask(kv.address.getPort(), container, "help");
            List<?> theirs = (List<?>) ask(redis.port, container, "help");
            assertEquals(theirs.get(0), ours.get(0), container);
            assertEquals(theirs.subList(theirs.size() - 2, theirs.size()), ours.subList(ours.size() - 2, ours.size()));
            for (Object line : ours) {
                assertTrue(theirs.contains(line) || line.equals("    Answered with no documentation (an empty array)."),
                        container + " HELP: " + line);
            }
            List<?> subcommands = (List<?>) ((List<?>) ((List<?>) ask(kv.address.getPort(), "COMMAND", "INFO",
                    container)).get(0)).get(9);
            for (Object sub : subcommands) {
                String name = ((String) ((List<?>) sub).get(0)).split("\\|")[1].toUpperCase(java.util.Locale.ROOT);
                assertTrue(ours.stream().anyMatch(l -> ((String) l).startsWith(name)), container + " HELP has " + name);
            }
        }
    }

    @Test
    void configGetTakesSeveralPatterns() throws Exception {
        Set<String> sameValues = Set.of("save", "appendonly", "maxmemory", "maxmemory-policy", "timeout",
                "proto-max-bulk-len");
        for (List<String> patterns : List.of(List.of("*"), List.of("*max*"), List.of("save", "appendonly"),
                List.of("APPEND*", "port"), List.of("*fsync*", "*only"), List.of("maxmemory*", "maxmemory"),
                List.of("[st]*", "d?tabases", "nosuch"))) {
            String[] args = Stream.concat(Stream.of("CONFIG", "GET"), patterns.stream()).toArray(String[]::new);
            Map<String, String> ours = Resp.pairs(ask(kv.address.getPort(), args));
            Map<String, String> theirs = Resp.pairs(ask(redis.port, args));
            assertFalse(ours.isEmpty(), patterns.toString());
            assertTrue(theirs.keySet().containsAll(ours.keySet()), patterns + ": " + ours + " not in " + theirs);
            ours.forEach((k, v) -> {
                if (sameValues.contains(k)) {
                    assertEquals(theirs.get(k), v, k);
                }
            });
            for (String p : patterns) {
                if (!p.contains("*") && !p.contains("?") && !p.contains("[") && theirs.containsKey(p)) {
                    assertTrue(ours.containsKey(p), p + " in " + ours);
                }
            }
        }
        assertEquals(Map.of("port", String.valueOf(kv.address.getPort()), "appendonly", "no", "save", ""),
                Resp.pairs(ask(kv.address.getPort(), "CONFIG", "GET", "port", "appendonly", "save", "port")));
    }

    @Test
    void writesOfTheNewCommandsReplayFromTheAppendOnlyFile() throws Exception {
        flushBoth();
        String writes = in("SET a 1", "APPEND a 23", "APPEND b x", "SETEX c 1000 v", "PSETEX d 1000000 v",
                "SET e v EX 1000", "GETEX e PERSIST", "SET f v", "GETEX f EX 1000", "SET g v", "GETDEL g",
                "SET h v", "EXPIRE h 1000 NX", "EXPIRE h 500 GT", "EXPIRE h 1500 GT", "SET i v EX 1000",
                "EXPIRE i 10 LT", "EXPIRE i -1 XX", "SET l v", "GETEX l PXAT 1");
        String reads = in("GET a", "GET b", "GET c", "GET d", "GET e", "TTL e", "GET f", "GET g", "GET h", "GET i",
                "GET l", "STRLEN a", "DBSIZE") + Resp.multibulk("KEYS", "*");
        String flushed = in("FLUSHALL", "SET j after", "APPEND j -flush", "SET k v EX 1000", "EXPIRE k 2000 GT");
        String readsAfterFlush = in("GET a", "GET j", "DBSIZE") + Resp.multibulk("KEYS", "*");
        String oneShard = KV_LIMITS + "\nsamples.kv.shards = 1"; // every write in one file, after each other
        int port;
        try (RunningKv first = RunningKv.start(oneShard, Optional.of(aof), KvAppendLog.Fsync.ALWAYS)) {
            assertSameReplies(writes, first.address.getPort());
        }
        Map<String, Long> ttls = new LinkedHashMap<>();
        try (RunningKv second = RunningKv.start(oneShard, Optional.of(aof), KvAppendLog.Fsync.ALWAYS)) {
            port = second.address.getPort();
            assertSameReplies(reads, port);
            for (String key : List.of("c", "d", "f", "h")) {
                ttls.put(key, (Long) ask(port, "TTL", key));
            }
            assertSameReplies(flushed, port);
        }
        assertTrue(ttls.get("c") > 900 && ttls.get("d") > 900 && ttls.get("f") > 900 && ttls.get("h") > 1400,
                "the deadlines survive: " + ttls);
        String afterReplay = in("SET m replayed", "APPEND j !");
        try (RunningKv third = RunningKv.start(oneShard, Optional.of(aof), KvAppendLog.Fsync.ALWAYS)) {
            assertSameReplies(readsAfterFlush, third.address.getPort());
            long ttl = (Long) ask(third.address.getPort(), "TTL", "k");
            assertTrue(ttl > 1900 && ttl <= 2000, "k's deadline survives: " + ttl);
            assertSameReplies(afterReplay, third.address.getPort()); // writes after a replay that held a FLUSHALL
        }
        try (RunningKv fourth = RunningKv.start(oneShard, Optional.of(aof), KvAppendLog.Fsync.ALWAYS)) {
            assertSameReplies(in("GET m", "GET j", "DBSIZE"), fourth.address.getPort());
        }
    }

    /** {@code request} to redis-server and to the kv node on {@code port}: the same replies (arrays as sets). */
    private void assertSameReplies(String request, int port) throws IOException {
        byte[] expected = sortArrays(Resp.exchange(redis.port, Resp.bytes(request), false));
        assertEquals(Resp.show(expected), Resp.show(sortArrays(Resp.exchange(port, Resp.bytes(request), false))));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void keysAndFlushallGoThroughEveryShardOfATwoNodeCluster() throws Exception {
        int seed = freePort();
        String cluster = KV_LIMITS + "\npekko.cluster.seed-nodes = [\"pekko://kv@127.0.0.1:" + seed + "\"]\n";
        try (RunningKv a = RunningKv.launch(cluster + "pekko.remote.artery.canonical.port = " + seed);
             RunningKv b = RunningKv.launch(cluster + "pekko.remote.artery.canonical.port = 0")) {
            await("two members up on both", KvNodeProcess.START_SECONDS, () -> membersUp(a, 2) && membersUp(b, 2));
            await("every shard answers", KvNodeProcess.START_SECONDS,
                    () -> everyShardAnswers(a) && everyShardAnswers(b));
            await("shards on both nodes", KvNodeProcess.START_SECONDS, () -> localShards(a) > 0 && localShards(b) > 0);
            flushBoth();
            List<String> mset = new ArrayList<>(List.of("MSET"));
            for (int i = 0; i < 200; i++) {
                mset.addAll(List.of("c:" + i, "v" + i));
            }
            String request = Resp.multibulk(mset.toArray(new String[0]));
            String keys = Resp.multibulk("KEYS", "*") + Resp.multibulk("KEYS", "c:1?")
                    + Resp.multibulk("KEYS", "c:[^1]") + Resp.multibulk("DBSIZE");
            assertEquals("+OK\r\n+OK\r\n", new String(Resp.exchange(a.address.getPort(), Resp.bytes(request), false),
                    StandardCharsets.ISO_8859_1));
            Resp.exchange(redis.port, Resp.bytes(request), false);
            byte[] expected = sortArrays(Resp.exchange(redis.port, Resp.bytes(keys), false));
            assertEquals(Resp.show(expected), Resp.show(sortArrays(Resp.exchange(b.address.getPort(), Resp.bytes(keys),
                    false))), "KEYS through the other node");
            assertEquals(Resp.show(expected), Resp.show(sortArrays(Resp.exchange(a.address.getPort(), Resp.bytes(keys),
                    false))), "KEYS through the node written to");
            assertEquals("+OK\r\n+OK\r\n", new String(Resp.exchange(b.address.getPort(), Resp.bytes(FLUSHALL), false),
                    StandardCharsets.ISO_8859_1));
            assertEquals("*0\r\n:0\r\n+OK\r\n", new String(Resp.exchange(a.address.getPort(),
                    Resp.bytes(Resp.multibulk("KEYS", "*") + Resp.multibulk("DBSIZE")), false),
                    StandardCharsets.ISO_8859_1), "FLUSHALL through one node empties the shards of both");
        }
    }

    private static boolean membersUp(RunningKv node, int members) {
        try {
            return ((String) ask(node.address.getPort(), "INFO", "cluster")).contains("cluster_members_up:" + members
                    + "\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean everyShardAnswers(RunningKv node) {
        try {
            return ask(node.address.getPort(), "DBSIZE") instanceof Long;
        } catch (IOException e) {
            return false;
        }
    }

    private static int localShards(RunningKv node) {
        int n = 0;
        for (int shard = 0; shard < node.node.shards; shard++) {
            n += node.node.localShard(shard) != null ? 1 : 0;
        }
        return n;
    }
}
