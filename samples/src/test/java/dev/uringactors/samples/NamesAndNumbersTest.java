package dev.uringactors.samples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The samples' numbers and names as bytes: read as redis-server (or HTTP) reads them, written without a detour. */
class NamesAndNumbersTest {
    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, -1, 9, 10, -10, 12345, Integer.MAX_VALUE, Integer.MIN_VALUE, Long.MAX_VALUE,
            Long.MIN_VALUE, Long.MIN_VALUE + 1})
    void numbersReadAndWrittenAsLongsPrintThem(long n) {
        assertEquals(n, KvShardState.integer(ascii(Long.toString(n))));
        assertEquals(":" + n + "\r\n", new String(RespOut.integerReply(n), StandardCharsets.US_ASCII));
        assertEquals("+OK\r\n:" + n + "\r\n", new String(new RespOut().raw(RespOut.OK).integer(n).toArray(),
                StandardCharsets.US_ASCII));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 10, -1, Integer.MAX_VALUE})
    void anArrayHeaderIsItsCount(int n) {
        assertEquals("*" + n + "\r\n", new String(new RespOut().arrayHeader(n).toArray(), StandardCharsets.US_ASCII));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "+1", "01", "-0", "-01", "00", " 1", "1 ", "1a", "9223372036854775808",
            "-9223372036854775809", "99999999999999999999", "123456789012345678901"})
    void whatRedisServerRefusesIsNoNumber(String s) {
        assertNull(KvShardState.integer(ascii(s)));
        assertEquals(-7, KvShardState.integer(ascii("x" + s + "x"), 1, s.length() + 1, -7));
    }

    @Test
    void aNumberIsReadInPlaceWithinItsBounds() {
        byte[] line = ascii("*42\r\n$16\r\n");
        assertEquals(42, KvShardState.integer(line, 1, 3, -1));
        assertEquals(16, KvShardState.integer(line, 6, 8, -1));
    }

    @Test
    void aBulkReplyFillsItsArrayExactly() {
        for (int length : new int[] {0, 1, 9, 10, 99, 100, 65536}) {
            byte[] value = new byte[length];
            java.util.Arrays.fill(value, (byte) 'v');
            byte[] reply = RespOut.bulkReply(value);
            assertEquals("$" + length + "\r\n" + "v".repeat(length) + "\r\n",
                    new String(reply, StandardCharsets.US_ASCII));
        }
        assertArrayEquals(ascii("$-1\r\n"), RespOut.bulkReply(null));
    }

    @Test
    void knownNamesAreFoundInAnyCaseAsTheSameString() {
        KnownNames names = new KnownNames(KnownNames.Fold.UPPER, List.of("GET", "SET", "CLIENT", "KEYSPACE"));
        String get = names.of(ascii("get"));
        assertEquals("GET", get);
        assertSame(get, names.of(ascii("GeT")));
        assertSame(get, names.of(ascii("GET")));
        assertSame(names.bytes(get), names.bytes(names.of(ascii("gEt")))); // no copy per command
        assertArrayEquals(ascii("GET"), names.bytes(get));
        assertEquals("CLIENT", names.of(ascii("client")));
    }

    @Test
    void anUnknownNameIsItsOwnUpperCase() {
        KnownNames names = new KnownNames(KnownNames.Fold.UPPER, List.of("GET", "SET"));
        assertEquals("GETS", names.of(ascii("gets")));
        assertEquals("GE", names.of(ascii("ge")));
        assertEquals("", names.of(new byte[0]));
        assertEquals("G\u00c9T", names.of(new byte[] {'g', (byte) 0xe9, 't'})); // ISO-8859-1, as read
        assertNotSame(names.bytes("GETS"), names.bytes("GETS"));
        assertArrayEquals(ascii("GETS"), names.bytes("GETS"));
    }

    @Test
    void httpNamesAreFoldedAsHttpFoldsThem() {
        KnownNames fields = new KnownNames(KnownNames.Fold.LOWER, List.of("host", "content-length"));
        byte[] line = ascii("Content-Length: 5");
        assertSame(fields.of(ascii("content-length")), fields.of(line, 0, 14));
        assertEquals("content-lengt", fields.of(line, 0, 13));
        assertEquals("x-custom", fields.of(ascii("X-Custom")));
        KnownNames methods = new KnownNames(KnownNames.Fold.NONE, List.of("GET", "HEAD"));
        assertSame(methods.of(ascii("GET")), methods.of(ascii("xGETx"), 1, 4));
        assertEquals("get", methods.of(ascii("get"))); // methods are case-sensitive: not GET
        assertNotSame(methods.of(ascii("get")), methods.of(ascii("get")));
    }

    @Test
    void everyCommandOfTheTableIsKnown() {
        for (String name : List.of("GET", "SET", "MGET", "MSET", "DEL", "EXISTS", "INCRBY", "FLUSHALL", "KEYSPACE",
                "COMMAND", "CLIENT", "INFO")) {
            assertSame(KvCommands.NAMES.of(ascii(name.toLowerCase(java.util.Locale.ROOT))),
                    KvCommands.NAMES.of(ascii(name)), name);
        }
    }
}
