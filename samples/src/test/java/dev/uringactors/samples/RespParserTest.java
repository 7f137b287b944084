package dev.uringactors.samples;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The RESP parser alone, against well-formed, split, and hostile input. */
class RespParserTest {
    private static final RespLimits LIMITS = RespLimits.from(ConfigFactory.load());

    private static RespParser parser(String input) {
        RespParser p = new RespParser(LIMITS);
        p.feed(ByteString.fromString(input, StandardCharsets.ISO_8859_1));
        return p;
    }

    private static List<String> words(RespParser.Outcome outcome) {
        List<String> words = new ArrayList<>();
        for (byte[] arg : assertInstanceOf(RespParser.Outcome.Command.class, outcome).args()) {
            words.add(new String(arg, StandardCharsets.ISO_8859_1));
        }
        return words;
    }

    private static String error(RespParser.Outcome outcome) {
        return assertInstanceOf(RespParser.Outcome.ProtocolError.class, outcome).message();
    }

    @Test
    void multibulkAndInlineCommandsInOneChunk() {
        RespParser p = parser("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\nPING\r\n\r\n  ECHO   hi \n*1\r\n$4\r\nPING\r\n");
        assertEquals(List.of("SET", "k", "value"), words(p.next()));
        assertEquals(List.of("PING"), words(p.next()));
        assertEquals(List.of("ECHO", "hi"), words(p.next())); // empty line skipped, LF alone ends a line
        assertEquals(List.of("PING"), words(p.next()));
        assertNull(p.next());
        assertEquals(0, p.buffered());
    }

    @Test
    void inlineWordsAreQuotedAsRedisServerQuotesThem() {
        RespParser p = parser("set \"a b\" 'c\\'d' \"\\x41\\n\\\"\\q\" x\"y z\"\r\necho \"\" ''\u000b\"\"\r\n");
        assertEquals(List.of("set", "a b", "c'd", "A\n\"q", "xy z"), words(p.next()));
        assertEquals(List.of("echo", "", "", ""), words(p.next())); // VT separates words, as isspace says
        assertNull(p.next());
    }

    @ParameterizedTest
    @ValueSource(strings = {"set \"a b\"c d\r\n", "set \"abc d\r\n", "set 'abc d\r\n", "echo \"a\\\"\r\n",
            "echo 'a'b\r\n", "echo \"a\\\r\n"})
    void unbalancedQuotesAreAProtocolError(String line) {
        assertEquals("Protocol error: unbalanced quotes in request", error(parser(line + "PING\r\n").next()));
    }

    @Test
    void aNulHidesTheEndOfAnInlineLineAsRedisServersStrchrDoes() {
        RespParser p = parser("echo a\0b\r\nPING\r\n");
        assertNull(p.next());
        p.feed(ByteString.fromString("x".repeat(LIMITS.maxInline())));
        assertEquals("Protocol error: too big inline request", error(p.next()));
    }

    @Test
    void aCommandFedOneByteAtATimeIsTheSame() {
        String input = "*2\r\n$3\r\nGET\r\n$11\r\nkey\r\nwith\r\n\r\n";
        RespParser p = new RespParser(LIMITS);
        List<RespParser.Outcome> found = new ArrayList<>();
        for (byte b : input.getBytes(StandardCharsets.ISO_8859_1)) {
            p.feed(ByteString.fromArray(new byte[] {b}));
            RespParser.Outcome o = p.next();
            if (o != null) {
                found.add(o);
            }
        }
        assertEquals(1, found.size());
        assertEquals(List.of("GET", "key\r\nwith\r\n"), words(found.get(0)));
    }

    @Test
    void binaryKeysKeepEveryByte() {
        byte[] key = new byte[256];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) i;
        }
        RespParser p = new RespParser(LIMITS);
        p.feed(ByteString.fromString("*2\r\n$3\r\nGET\r\n$256\r\n"));
        p.feed(ByteString.fromArray(key));
        assertNull(p.next());
        p.feed(ByteString.fromString("\r\n"));
        RespParser.Outcome.Command c = assertInstanceOf(RespParser.Outcome.Command.class, p.next());
        assertArrayEquals(key, c.args().get(1));
    }

    @Test
    void emptyAndNullMultibulksAreNoCommand() {
        RespParser p = parser("*0\r\n*-1\r\n*1\r\n$0\r\n\r\n");
        assertEquals(List.of(""), words(p.next()));
        assertNull(p.next());
    }

    @ParameterizedTest
    @ValueSource(strings = {"*1\r\n$-1\r\n", "*1\r\n$-5\r\n", "*1\r\n$x\r\n", "*1\r\n$\r\n",
            "*1\r\n$1073741824\r\n", "*1\r\n$99999999999999999999\r\n"})
    void aBadOrHugeBulkLengthIsRefusedWhenAnnounced(String input) {
        RespParser p = parser(input);
        assertEquals("Protocol error: invalid bulk length", error(p.next()));
        assertEquals(0, p.buffered()); // a gigabyte announced: nothing of it held
    }

    @ParameterizedTest
    @ValueSource(strings = {"*abc\r\n", "*1048577\r\n", "*\r\n"})
    void aBadOrHugeElementCountIsRefused(String input) {
        assertEquals("Protocol error: invalid multibulk length", error(parser(input).next()));
    }

    @Test
    void aGigabyteBulkAnnouncedWithinTheLimitWaitsWithoutHoldingIt() {
        RespLimits big = new RespLimits(1 << 30, 16, 1024, 1L << 31);
        RespParser p = new RespParser(big);
        p.feed(ByteString.fromString("*2\r\n$3\r\nSET\r\n$1073741824\r\nabc"));
        assertNull(p.next());
        assertTrue(p.buffered() < 16, "held " + p.buffered());
    }

    @Test
    void aRequestLargerThanMaxRequestIsRefused() {
        RespParser p = new RespParser(new RespLimits(10, 100, 1024, 15));
        p.feed(ByteString.fromString("*3\r\n$3\r\nSET\r\n$10\r\n0123456789\r\n$10\r\n"));
        assertEquals("Protocol error: invalid bulk length", error(p.next()));
    }

    @Test
    void unterminatedFramesWaitAndThenOverlongHeadersFail() {
        assertNull(parser("*3\r\n$3\r\nSET\r\n$1\r").next());
        assertNull(parser("*12").next());
        assertNull(parser("*" + "1".repeat(40)).next()); // as redis-server: a header waits for its CR up to 64 KiB
        assertEquals("Protocol error: invalid multibulk length", error(parser("*" + "1".repeat(40) + "\r\n").next()));
        String longer = "1".repeat(LIMITS.maxInline());
        assertEquals("Protocol error: too big mbulk count string", error(parser("*" + longer).next()));
        assertEquals("Protocol error: too big bulk count string", error(parser("*1\r\n$" + longer).next()));
        assertNull(parser("*1\r\n$4\0\r\nPING\r\n").next()); // a NUL hides the CR, as from strchr
    }

    @Test
    void theTwoBytesAfterABulkAreSkippedUnreadAndADollarIsNeeded() {
        RespParser p = parser("*2\r\n$4\r\nECHOxx$1\r\nab\r\n*1\r\n$4\r\nPING\r\n");
        assertEquals(List.of("ECHO", "a"), words(p.next())); // as redis-server, which takes them for CRLF
        assertEquals(List.of("PING"), words(p.next())); // "\r\n" left after "ab": an empty inline line
        assertEquals("Protocol error: expected '$', got ':'", error(parser("*1\r\n:1\r\n").next()));
        assertEquals("Protocol error: invalid multibulk length", error(parser("*01\r\n").next()));
        assertEquals("Protocol error: invalid bulk length", error(parser("*1\r\n$+4\r\n").next()));
    }

    @Test
    void anInlineLineLongerThanTheLimitFails() {
        RespParser p = new RespParser(LIMITS);
        String chunk = "x".repeat(8192);
        RespParser.Outcome o = null;
        for (int i = 0; i < 10 && o == null; i++) {
            p.feed(ByteString.fromString(chunk));
            o = p.next();
        }
        assertEquals("Protocol error: too big inline request", error(o));
    }

    @Test
    void afterAnErrorEveryOutcomeIsAnError() {
        RespParser p = parser("*1\r\n$-3\r\n");
        error(p.next());
        p.feed(ByteString.fromString("PING\r\n"));
        error(p.next());
        assertEquals(0, p.buffered());
    }

    @Test
    void aHundredThousandPipelinedCommandsInOneChunk() {
        StringBuilder input = new StringBuilder();
        for (int i = 0; i < 100_000; i++) {
            input.append("*2\r\n$3\r\nGET\r\n$").append(Integer.toString(i).length()).append("\r\n").append(i)
                    .append("\r\n");
        }
        RespParser p = parser(input.toString());
        for (int i = 0; i < 100_000; i++) {
            assertEquals(List.of("GET", Integer.toString(i)), words(p.next()));
        }
        assertNull(p.next());
    }

    @Test
    void aMegabyteOfGarbageEndsInCommandsOrAnErrorWithBoundedMemory() {
        byte[] garbage = new byte[1 << 20];
        new Random(42).nextBytes(garbage);
        RespParser p = new RespParser(LIMITS);
        int commands = 0;
        RespParser.Outcome o = null;
        for (int off = 0; off < garbage.length && !(o instanceof RespParser.Outcome.ProtocolError); off += 4096) {
            p.feed(ByteString.fromArray(garbage, off, 4096));
            while ((o = p.next()) instanceof RespParser.Outcome.Command) {
                commands++;
            }
            assertTrue(p.buffered() <= LIMITS.maxInline() + 4096 + 64, "held " + p.buffered());
        }
        assertTrue(commands > 0 || o instanceof RespParser.Outcome.ProtocolError);
    }

    @Test
    void badLimitsNameTheirSetting() {
        ConfigException e = assertThrows(ConfigException.class, () -> RespLimits.from(ConfigFactory
                .parseString("samples.kv.max-bulk-length = 0").withFallback(ConfigFactory.load())));
        assertTrue(e.getMessage().contains("samples.kv.max-bulk-length"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> RespLimits.from(ConfigFactory
                .parseString("samples.kv.max-request-size = 1 KiB").withFallback(ConfigFactory.load())));
        assertTrue(e.getMessage().contains("samples.kv.max-request-size"), e.getMessage());
    }
}
