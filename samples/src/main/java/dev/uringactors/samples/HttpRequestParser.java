package dev.uringactors.samples;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Splits a connection's bytes into HTTP/1.1 requests as they arrive, by the rules of RFC 9112: several pipelined
 * requests can come in one read, and one request across many. Every limit is checked on every path, whether a
 * head arrives whole or a byte at a time: the head ({@link Limits#maxHead}, else 431), the target (414), the
 * body (413). A body is skipped as it arrives, never buffered. Lines may end in CRLF or a bare LF (RFC 9112
 * 2.2). Every count is bounded by the limits, and Content-Length is read without overflow.
 *
 * <p>After a request that must end the connection (an error, or a close the request asked for) the parser
 * returns nothing more: the answer is the last thing the connection carries.
 */
final class HttpRequestParser {
    /** The limits of one request. */
    record Limits(int maxHead, int maxTarget, long maxBody) {
        static final Limits DEFAULT = new Limits(8192, 4096, 1 << 20);
    }

    /** A header field: its name in lower case and its value without surrounding white space. */
    record Header(String name, String value) {
    }

    /**
     * One request, complete with its body, or a rejection ({@code errorStatus} is then the status to answer,
     * and the connection closes after it).
     */
    record Request(String method, String target, boolean http11, boolean keepAlive, List<Header> headers,
                   int errorStatus) {
        static Request rejected(int status) {
            return new Request("", "", true, false, List.of(), status);
        }

        /** The value of the first header named {@code lowerCaseName}, or null. */
        String header(String lowerCaseName) {
            for (Header h : headers) {
                if (h.name().equals(lowerCaseName)) {
                    return h.value();
                }
            }
            return null;
        }
    }

    /** The methods of RFC 9110 and PATCH, which are case-sensitive (RFC 9110 9.1). */
    private static final KnownNames METHODS = new KnownNames(KnownNames.Fold.NONE, List.of("GET", "HEAD", "POST",
            "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"));
    /** The field names clients send most, which are case-insensitive (RFC 9110 5.1). */
    private static final KnownNames FIELD_NAMES = new KnownNames(KnownNames.Fold.LOWER, List.of("host",
            "connection", "content-length", "transfer-encoding", "expect", "user-agent", "accept", "accept-encoding",
            "accept-language", "accept-charset", "if-none-match", "if-modified-since", "if-match",
            "if-unmodified-since", "if-range", "range", "cookie", "referer", "origin", "cache-control", "pragma",
            "content-type", "authorization", "upgrade", "te", "keep-alive", "dnt", "sec-fetch-mode",
            "sec-fetch-site", "sec-fetch-dest", "upgrade-insecure-requests", "x-forwarded-for", "forwarded", "via"));

    private final Limits limits;
    private byte[] buffer = new byte[4096];
    /** Where the lines of the head being parsed start and end, two ints a line; grown for a head of many. */
    private int[] lineBounds = new int[64];
    private int start;
    private int end;
    /** Where the search for the head's end goes on: bytes before it were looked at already. */
    private int scanned;
    /** The request whose body is being skipped, or null while a head is expected. */
    private Request pending;
    private long bodyLeft;
    private boolean continueWanted;
    /** The last request ended the connection: nothing more is parsed. */
    private boolean done;

    HttpRequestParser(Limits limits) {
        this.limits = limits;
    }

    HttpRequestParser() {
        this(Limits.DEFAULT);
    }

    void append(byte[] data) {
        int from = 0;
        if (done) {
            return;
        }
        if (pending != null && start == end) { // skip the body without buffering it
            from = (int) Math.min(bodyLeft, data.length);
            bodyLeft -= from;
        }
        int length = data.length - from;
        if (end + length > buffer.length) {
            int live = end - start;
            if (live + length > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, live + length));
            }
            System.arraycopy(buffer, start, buffer, 0, live);
            scanned -= start;
            start = 0;
            end = live;
        }
        System.arraycopy(data, from, buffer, end, length);
        end += length;
    }

    /** Whether part of a request head has arrived but not all of it (for a request-head timeout). */
    boolean inPartialHead() {
        return !done && pending == null && end > start;
    }

    /**
     * Whether the request whose body is awaited asked {@code Expect: 100-continue}; true once per such request,
     * so that the caller sends {@code 100 Continue} once.
     */
    boolean takeContinueWanted() {
        boolean wanted = continueWanted;
        continueWanted = false;
        return wanted;
    }

    /** The next complete request, or null when more bytes are needed (or the connection is done). */
    Request next() {
        if (done) {
            return null;
        }
        if (pending != null) {
            return skipBody();
        }
        skipLeadingEmptyLines();
        int headEnd = endOfHead();
        if (headEnd < 0) {
            return end - start > limits.maxHead() ? reject(431) : targetTooLongSoFar() ? reject(414) : null;
        }
        if (headEnd - start > limits.maxHead()) {
            return reject(431);
        }
        int headStart = start;
        start = headEnd; // the body, if any, follows
        scanned = start;
        Request request = parseHead(headStart, headEnd); // null while its body is still to come
        if (request != null && request.errorStatus() != 0) {
            return reject(request.errorStatus());
        }
        return request;
    }

    private Request reject(int status) {
        done = true;
        start = end = scanned = 0;
        return Request.rejected(status);
    }

    private Request finished(Request request) {
        if (!request.keepAlive()) {
            done = true;
        }
        return request;
    }

    private Request skipBody() {
        int skip = (int) Math.min(bodyLeft, end - start);
        start += skip;
        scanned = start;
        bodyLeft -= skip;
        if (bodyLeft > 0) {
            return null;
        }
        Request request = pending;
        pending = null;
        continueWanted = false;
        return finished(request);
    }

    /** RFC 9112 2.2: at least one empty line before a request line is ignored. */
    private void skipLeadingEmptyLines() {
        while (start < end && (buffer[start] == '\n' || (buffer[start] == '\r' && start + 1 < end
                && buffer[start + 1] == '\n'))) {
            start += buffer[start] == '\r' ? 2 : 1;
        }
        scanned = Math.max(scanned, start);
    }

    /** The index just past the head's empty line, or -1: an empty line is LF LF or LF CR LF. */
    private int endOfHead() {
        for (int i = Math.max(scanned, start); i < end; i++) {
            if (buffer[i] != '\n') {
                continue;
            }
            if (i + 1 < end && buffer[i + 1] == '\n') {
                return i + 2;
            }
            if (i + 2 < end && buffer[i + 1] == '\r' && buffer[i + 2] == '\n') {
                return i + 3;
            }
        }
        scanned = Math.max(start, end - 2); // the last two bytes may begin the empty line
        return -1;
    }

    /** While the head is incomplete: a request line whose target has grown past the limit is a 414 already. */
    private boolean targetTooLongSoFar() {
        int sp = indexOf((byte) ' ', start, end);
        if (sp < 0) {
            return false;
        }
        int lineEnd = indexOf((byte) '\n', sp, end);
        int targetEnd = indexOf((byte) ' ', sp + 1, lineEnd < 0 ? end : lineEnd);
        return (targetEnd < 0 ? (lineEnd < 0 ? end : lineEnd) : targetEnd) - sp - 1 > limits.maxTarget();
    }

    /** The request of a head, a rejection, or null when the request is framed but its body still to come. */
    private Request parseHead(int headStart, int headEnd) {
        int lines = lines(headStart, headEnd);
        if (lines <= 0) {
            return Request.rejected(400);
        }
        int lineStart = lineBounds[0];
        int lineEnd = lineBounds[1];
        int sp1 = indexOf((byte) ' ', lineStart, lineEnd);
        int sp2 = sp1 < 0 ? -1 : indexOf((byte) ' ', sp1 + 1, lineEnd);
        if (sp1 <= lineStart || sp2 < 0 || indexOf((byte) ' ', sp2 + 1, lineEnd) >= 0) {
            return Request.rejected(400);
        }
        if (!isToken(lineStart, sp1)) {
            return Request.rejected(400);
        }
        if (sp2 - sp1 - 1 > limits.maxTarget()) {
            return Request.rejected(414);
        }
        String method = METHODS.of(buffer, lineStart, sp1);
        String target = ascii(sp1 + 1, sp2);
        if (!validTarget(method, target)) {
            return Request.rejected(400);
        }
        int minor = version(sp2 + 1, lineEnd);
        if (minor == -1) {
            return Request.rejected(400);
        }
        if (minor == -2) {
            return Request.rejected(505);
        }
        boolean http11 = minor == 1;
        List<Header> headers = new ArrayList<>(lines - 1);
        for (int i = 1; i < lines; i++) {
            Header h = header(lineBounds[2 * i], lineBounds[2 * i + 1]);
            if (h == null) {
                return Request.rejected(400);
            }
            headers.add(h);
        }
        return withFraming(method, target, http11, headers);
    }

    /** Content-Length, Transfer-Encoding, Host, Expect and Connection: how the request is framed and ends. */
    private Request withFraming(String method, String target, boolean http11, List<Header> headers) {
        int hosts = 0;
        long contentLength = -1;
        boolean keepAlive = http11;
        boolean close = false;
        boolean expectContinue = false;
        for (Header h : headers) {
            switch (h.name()) {
                case "host" -> hosts++;
                case "transfer-encoding" -> {
                    return Request.rejected(501); // chunked bodies are not taken by these samples
                }
                case "content-length" -> {
                    long length = contentLength(h.value());
                    if (length == -1 || (contentLength >= 0 && length != contentLength)) {
                        return Request.rejected(400); // not digits, or two lengths that differ
                    }
                    contentLength = length;
                }
                case "connection" -> {
                    for (String token : h.value().toLowerCase(Locale.ROOT).split(",")) {
                        close |= token.strip().equals("close");
                        keepAlive |= token.strip().equals("keep-alive");
                    }
                }
                case "expect" -> {
                    if (!h.value().equalsIgnoreCase("100-continue")) {
                        return Request.rejected(417);
                    }
                    expectContinue = true;
                }
                default -> { }
            }
        }
        if (hosts > 1 || (http11 && hosts == 0)) {
            return Request.rejected(400); // RFC 9112 3.2: exactly one Host in HTTP/1.1
        }
        if (contentLength > limits.maxBody()) {
            return Request.rejected(413);
        }
        Request request = new Request(method, target, http11, keepAlive && !close, headers, 0);
        if (contentLength <= 0) {
            return finished(request);
        }
        pending = request;
        bodyLeft = contentLength;
        continueWanted = expectContinue && http11;
        return skipBody();
    }

    /**
     * A Content-Length value: digits, or a list of identical values (RFC 9110 8.6). -1 when it is not that;
     * {@link Long#MAX_VALUE} for a number too large to hold, which is past any body limit.
     */
    private static long contentLength(String value) {
        long result = -1;
        for (String element : value.split(",", -1)) {
            String digits = element.strip();
            if (digits.isEmpty()) {
                return -1;
            }
            long n = 0;
            for (int i = 0; i < digits.length(); i++) {
                char c = digits.charAt(i);
                if (c < '0' || c > '9') {
                    return -1;
                }
                n = n > (Long.MAX_VALUE - 9) / 10 ? Long.MAX_VALUE : n * 10 + (c - '0');
            }
            if (result >= 0 && n != result) {
                return -1;
            }
            result = n;
        }
        return result;
    }

    /** HTTP-version in [from, to): 0 or 1 for HTTP/1.0 and 1.1, -2 for another HTTP/d.d, -1 if it is none. */
    private int version(int from, int to) {
        if (to - from != 8 || buffer[from] != 'H' || buffer[from + 1] != 'T' || buffer[from + 2] != 'T'
                || buffer[from + 3] != 'P' || buffer[from + 4] != '/' || buffer[from + 6] != '.'
                || !isDigit(buffer[from + 5]) || !isDigit(buffer[from + 7])) {
            return -1;
        }
        return buffer[from + 5] == '1' && buffer[from + 7] <= '1' ? buffer[from + 7] - '0' : -2;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    /** origin-form ("/path?query"), absolute-form ("http://host/path"), or "*" for OPTIONS (RFC 9112 3.2). */
    private static boolean validTarget(String method, String target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                return false;
            }
        }
        return target.startsWith("/") || target.startsWith("http://") || target.startsWith("https://")
                || (target.equals("*") && method.equals("OPTIONS"));
    }

    /** A field line: a token name, a colon right after it, a value of visible characters, spaces and tabs. */
    private Header header(int lineStart, int lineEnd) {
        int colon = indexOf((byte) ':', lineStart, lineEnd);
        if (colon <= lineStart || !isToken(lineStart, colon)) {
            return null; // also a line folded onto the previous one (obs-fold), which starts with white space
        }
        int from = colon + 1;
        int to = lineEnd;
        while (from < to && (buffer[from] == ' ' || buffer[from] == '\t')) {
            from++;
        }
        while (to > from && (buffer[to - 1] == ' ' || buffer[to - 1] == '\t')) {
            to--;
        }
        for (int i = from; i < to; i++) {
            int b = buffer[i] & 0xff;
            if ((b < 0x20 && b != '\t') || b == 0x7f) {
                return null;
            }
        }
        return new Header(FIELD_NAMES.of(buffer, lineStart, colon), ascii(from, to));
    }

    /**
     * The head's lines up to the empty line, without their line ends, into {@link #lineBounds} (line i from
     * {@code [2i]} to {@code [2i + 1]}); their count, or -1 if a CR stands alone.
     */
    private int lines(int from, int headEnd) {
        int lines = 0;
        int lineStart = from;
        for (int i = from; i < headEnd; i++) {
            if (buffer[i] == '\n') {
                int lineEnd = i > lineStart && buffer[i - 1] == '\r' ? i - 1 : i;
                if (lineEnd == lineStart) {
                    break; // the empty line
                }
                if (indexOf((byte) '\r', lineStart, lineEnd) >= 0) {
                    return -1;
                }
                if (2 * lines + 2 > lineBounds.length) {
                    lineBounds = Arrays.copyOf(lineBounds, 2 * lineBounds.length);
                }
                lineBounds[2 * lines] = lineStart;
                lineBounds[2 * lines + 1] = lineEnd;
                lines++;
                lineStart = i + 1;
            }
        }
        return lines;
    }

    /** tchar (RFC 9110 5.6.2): letters, digits and !#$%&'*+-.^_`|~. */
    private boolean isToken(int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            int c = buffer[i] & 0xff;
            boolean alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!alnum && "!#$%&'*+-.^_`|~".indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }

    private int indexOf(byte b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (buffer[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private String ascii(int from, int to) {
        return new String(buffer, from, to - from, StandardCharsets.ISO_8859_1);
    }
}
