package dev.uringactors.samples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The request parser against RFC 9112's rules, and a seeded fuzzer that splits every input at every byte. */
class HttpRequestParserTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** What one whole input gives: every request's outcome, in order. */
    private static List<String> parseWhole(byte[] input) {
        HttpRequestParser parser = new HttpRequestParser();
        parser.append(input);
        return drain(parser, new ArrayList<>());
    }

    private static List<String> drain(HttpRequestParser parser, List<String> into) {
        for (int guard = 0; guard < 10_000; guard++) {
            HttpRequestParser.Request r = parser.next();
            if (r == null) {
                return into;
            }
            into.add(r.errorStatus() != 0 ? "status " + r.errorStatus()
                    : r.method() + " " + r.target() + (r.keepAlive() ? " keep-alive" : " close"));
        }
        throw new AssertionError("the parser keeps returning requests: it does not consume its input");
    }

    private static String first(String request) {
        List<String> outcomes = parseWhole(bytes(request));
        return outcomes.isEmpty() ? "incomplete" : outcomes.get(0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "HTTP/1.1 without Host | GET / HTTP/1.1\\r\\n\\r\\n | status 400",
        "two Hosts | GET / HTTP/1.1\\r\\nHost: a\\r\\nHost: b\\r\\n\\r\\n | status 400",
        "HTTP/1.0 without Host | GET / HTTP/1.0\\r\\n\\r\\n | GET / close",
        "two different lengths | POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 1\\r\\nContent-Length: 2\\r\\n\\r\\nab"
                + " | status 400",
        "a list of equal lengths | POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 2, 2\\r\\n\\r\\nab | POST / keep-alive",
        "a signed length | POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: +2\\r\\n\\r\\nab | status 400",
        "a negative length | POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: -1\\r\\n\\r\\n | status 400",
        "a length that wraps a long | POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 9223372036854775743\\r\\n\\r\\n"
                + " | status 413",
        "the largest long | POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 9223372036854775807\\r\\n\\r\\n | status 413",
        "more digits than a long | POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 99999999999999999999999\\r\\n\\r\\n"
                + " | status 413",
        "a body over the limit | POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 10000000\\r\\n\\r\\n | status 413",
        "chunked | POST / HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | status 501",
        "a control character in the method | G\\1T / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n | status 400",
        "lower-case method, a valid token | get / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n | get / keep-alive",
        "HTTP/1.9 | GET / HTTP/1.9\\r\\nHost: a\\r\\n\\r\\n | status 505",
        "HTTP/2.0 | GET / HTTP/2.0\\r\\nHost: a\\r\\n\\r\\n | status 505",
        "a malformed version | GET / HTTPS/1.1\\r\\nHost: a\\r\\n\\r\\n | status 400",
        "bare LF line ends | GET /lf HTTP/1.1\\nHost: a\\n\\n | GET /lf keep-alive",
        "a lone CR | GET / HTTP/1.1\\r\\nHost: a\\rb\\r\\n\\r\\n | status 400",
        "HTTP/1.0 keep-alive | GET / HTTP/1.0\\r\\nConnection: keep-alive\\r\\n\\r\\n | GET / keep-alive",
        "keep-alive and close | GET / HTTP/1.1\\r\\nHost: a\\r\\nConnection: keep-alive, close\\r\\n\\r\\n | GET / close",
        "a folded header | GET / HTTP/1.1\\r\\nHost: a\\r\\nX: 1\\r\\n 2\\r\\n\\r\\n | status 400",
        "space before the colon | GET / HTTP/1.1\\r\\nHost : a\\r\\n\\r\\n | status 400",
        "a target that is no path | GET index.html HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n | status 400",
        "an absolute target | GET http://a/x HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n | GET http://a/x keep-alive",
        "an unknown expectation | POST / HTTP/1.1\\r\\nHost: a\\r\\nExpect: magic\\r\\n\\r\\n | status 417",
        "two spaces in the request line | GET  / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n | status 400",
        "empty lines before the request | \\r\\n\\r\\nGET / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n | GET / keep-alive",
    })
    void followsRfc9112(String what, String request, String expected) {
        assertEquals(expected, first(request.translateEscapes()), what);
    }

    @Test
    void aHeadOverTheLimitIsRefusedWhetherItArrivesWholeOrInPieces() {
        String big = "GET / HTTP/1.1\r\nHost: a\r\nX: " + "y".repeat(9000) + "\r\n\r\n";
        assertEquals("status 431", first(big));
        HttpRequestParser parser = new HttpRequestParser();
        List<String> outcomes = new ArrayList<>();
        for (byte b : bytes(big)) {
            parser.append(new byte[] {b});
            drain(parser, outcomes);
        }
        assertEquals(List.of("status 431"), outcomes);
    }

    @Test
    void aTargetOverTheLimitIs414EvenBeforeTheLineEnds() {
        assertEquals("status 414", first("GET /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertEquals("status 414", first("GET /" + "a".repeat(5000)));
    }

    @Test
    void aLongMethodIsAValidTokenForTheServerToRefuse() {
        assertEquals("M".repeat(4000) + " / keep-alive", first("M".repeat(4000) + " / HTTP/1.1\r\nHost: a\r\n\r\n"));
    }

    @Test
    void expectContinueIsAskedOnceAndTheBodyIsSkippedAsItArrives() {
        HttpRequestParser parser = new HttpRequestParser();
        parser.append(bytes("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"));
        assertNull(parser.next());
        assertTrue(parser.takeContinueWanted());
        assertFalse(parser.takeContinueWanted());
        parser.append(bytes("hel"));
        assertNull(parser.next());
        parser.append(bytes("loGET /next HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertEquals("POST", parser.next().method());
        assertEquals("/next", parser.next().target());
    }

    @Test
    void nothingIsParsedAfterARequestThatEndsTheConnection() {
        assertEquals(List.of("GET /1 close"), parseWhole(bytes(
                "GET /1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n")));
        assertEquals(List.of("status 400"), parseWhole(bytes("BAD\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")));
    }

    // ---- fuzzing: valid requests, mutated ones, and garbage, each split at every byte boundary

    private static final String[] METHODS = {"GET", "HEAD", "POST", "PUT", "get", "G ET", "", "\u0000"};
    private static final String[] TARGETS = {"/", "/a?b=c", "*", "http://h/p", "", "/%2e%2e/", "/\u0001"};
    private static final String[] VERSIONS = {"HTTP/1.1", "HTTP/1.0", "HTTP/1.9", "HTTP/1", "http/1.1"};
    private static final String[] HEADERS = {"Host: a", "Host: b", "Connection: close", "Connection: keep-alive",
        "Content-Length: 3", "Content-Length: 0", "Content-Length: 99999999999999999999",
        "Transfer-Encoding: chunked", "Expect: 100-continue", "X-Long: " + "v".repeat(300), "Bad Name: x",
        " folded", "NoColon"};

    private static byte[] randomRequests(Random random) {
        StringBuilder b = new StringBuilder();
        int requests = 1 + random.nextInt(3);
        for (int r = 0; r < requests; r++) {
            String eol = random.nextInt(5) == 0 ? "\n" : "\r\n";
            b.append(METHODS[random.nextInt(METHODS.length)]).append(' ')
                    .append(TARGETS[random.nextInt(TARGETS.length)]).append(' ')
                    .append(VERSIONS[random.nextInt(VERSIONS.length)]).append(eol);
            int headers = random.nextInt(4);
            for (int h = 0; h < headers; h++) {
                b.append(HEADERS[random.nextInt(HEADERS.length)]).append(eol);
            }
            b.append(eol).append("abc", 0, random.nextInt(4));
        }
        byte[] input = bytes(b.toString());
        int mutations = random.nextInt(3);
        for (int m = 0; m < mutations && input.length > 0; m++) {
            int at = random.nextInt(input.length);
            switch (random.nextInt(4)) {
                case 0 -> input[at] = (byte) random.nextInt(256);
                case 1 -> input[at] = (byte) "\r\n: \u0000".charAt(random.nextInt(5));
                case 2 -> input = Arrays.copyOf(input, at); // truncated
                default -> { // a run duplicated
                    byte[] longer = Arrays.copyOf(input, input.length + Math.min(20, input.length - at));
                    System.arraycopy(input, at, longer, input.length, longer.length - input.length);
                    input = longer;
                }
            }
        }
        return input;
    }

    @Test
    void anyInputSplitAnywhereGivesTheSameOutcomes() {
        Random random = new Random(20261130);
        for (int round = 0; round < 400; round++) {
            byte[] input = randomRequests(random);
            List<String> whole = parseWhole(input);
            for (int i = 0; i <= input.length; i++) {
                int split = i;
                HttpRequestParser parser = new HttpRequestParser();
                List<String> outcomes = new ArrayList<>();
                parser.append(Arrays.copyOfRange(input, 0, split));
                drain(parser, outcomes);
                parser.append(Arrays.copyOfRange(input, split, input.length));
                drain(parser, outcomes);
                assertEquals(whole, outcomes, () -> "split at " + split + " of " + Arrays.toString(input));
            }
            HttpRequestParser bytewise = new HttpRequestParser();
            List<String> outcomes = new ArrayList<>();
            for (byte b : input) {
                bytewise.append(new byte[] {b});
                drain(bytewise, outcomes);
            }
            assertEquals(whole, outcomes, "one byte at a time");
        }
    }
}
