package dev.uringactors.samples;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Splits a connection's bytes into HTTP/1.1 requests (head, then a Content-Length body), in order, as they
 * arrive: several pipelined requests can come in one read, and one request across several. Only what a
 * hello-world server needs: the request line and the Connection, Content-Length and Transfer-Encoding headers.
 */
final class HttpRequestParser {
    static final int MAX_HEAD = 8192;

    /** One request: its target, whether the connection stays open after it, or an error status to answer. */
    record Request(String method, String target, boolean keepAlive, int errorStatus) {
    }

    private byte[] buffer = new byte[4096];
    private int start;
    private int end;

    void append(byte[] data) {
        if (end + data.length > buffer.length) {
            int live = end - start;
            if (live + data.length > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, live + data.length));
            }
            System.arraycopy(buffer, start, buffer, 0, live);
            start = 0;
            end = live;
        }
        System.arraycopy(data, 0, buffer, end, data.length);
        end += data.length;
    }

    /** The next complete request, or null when more bytes are needed. Reads bytes; makes one String, the target. */
    Request next() {
        int headEnd = indexOfBlankLine();
        if (headEnd < 0) {
            return end - start > MAX_HEAD ? new Request("", "", false, 431) : null;
        }
        int lineEnd = indexOf('\r', start, headEnd);
        if (lineEnd < 0) {
            lineEnd = headEnd; // no headers: the request line ends where the head does
        }
        int sp1 = indexOf(' ', start, lineEnd);
        int sp2 = sp1 < 0 ? -1 : indexOf(' ', sp1 + 1, lineEnd);
        if (sp2 < 0 || !startsWith(sp2 + 1, "HTTP/1.") || lineEnd - sp2 - 1 != 8) {
            return new Request("", "", false, 400);
        }
        boolean http11 = buffer[lineEnd - 1] == '1';
        boolean keepAlive = http11;
        long contentLength = 0;
        for (int line = lineEnd + 2; line < headEnd; ) {
            int eol = indexOf('\r', line, headEnd);
            eol = eol < 0 ? headEnd : eol;
            int colon = indexOf(':', line, eol);
            if (colon <= line) {
                return new Request("", "", false, 400);
            }
            if (nameIs(line, colon, "connection")) {
                String value = ascii(colon + 1, eol).toLowerCase(Locale.ROOT);
                keepAlive = value.contains("keep-alive") || (http11 && !value.contains("close"));
            } else if (nameIs(line, colon, "content-length")) {
                try {
                    contentLength = Long.parseLong(ascii(colon + 1, eol).trim());
                } catch (NumberFormatException e) {
                    return new Request("", "", false, 400);
                }
            } else if (nameIs(line, colon, "transfer-encoding")) {
                return new Request("", "", false, 501);
            }
            line = eol + 2;
        }
        if (contentLength < 0) {
            return new Request("", "", false, 400);
        }
        long total = headEnd + 4L - start + contentLength;
        if (total > end - start) {
            return null; // wait for the body
        }
        String method = ascii(start, sp1);
        String target = ascii(sp1 + 1, sp2);
        start += (int) total;
        if (start == end) {
            start = end = 0;
        }
        return new Request(method, target, keepAlive, 0);
    }

    private int indexOf(char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (buffer[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private boolean startsWith(int at, String prefix) {
        if (at + prefix.length() > end) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (buffer[at + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the header name in [from, to) is {@code lowerCaseName}, ignoring case. */
    private boolean nameIs(int from, int to, String lowerCaseName) {
        if (to - from != lowerCaseName.length()) {
            return false;
        }
        for (int i = 0; i < lowerCaseName.length(); i++) {
            if (Character.toLowerCase((char) buffer[from + i]) != lowerCaseName.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private String ascii(int from, int to) {
        return new String(buffer, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private int indexOfBlankLine() {
        for (int i = start; i + 3 < end; i++) {
            if (buffer[i] == '\r' && buffer[i + 1] == '\n' && buffer[i + 2] == '\r' && buffer[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
