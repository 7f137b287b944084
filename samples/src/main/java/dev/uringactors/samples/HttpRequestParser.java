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

    /** The next complete request, or null when more bytes are needed. */
    Request next() {
        int headEnd = indexOfBlankLine();
        if (headEnd < 0) {
            return end - start > MAX_HEAD ? new Request("", "", false, 431) : null;
        }
        String head = new String(buffer, start, headEnd - start, StandardCharsets.ISO_8859_1);
        String[] lines = head.split("\r\n");
        String[] requestLine = lines[0].split(" ");
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
            return new Request("", "", false, 400);
        }
        boolean http11 = requestLine[2].equals("HTTP/1.1");
        boolean keepAlive = http11;
        long contentLength = 0;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                return new Request("", "", false, 400);
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "connection" -> keepAlive = value.contains("keep-alive") || (http11 && !value.contains("close"));
                case "content-length" -> {
                    try {
                        contentLength = Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        return new Request("", "", false, 400);
                    }
                }
                case "transfer-encoding" -> {
                    return new Request("", "", false, 501);
                }
                default -> { }
            }
        }
        long total = headEnd + 4L - start + contentLength;
        if (contentLength < 0 || total > end - start) {
            return contentLength < 0 ? new Request("", "", false, 400) : null; // wait for the body
        }
        start += (int) total;
        if (start == end) {
            start = end = 0;
        }
        return new Request(requestLine[0], requestLine[1], keepAlive, 0);
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
