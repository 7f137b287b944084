package dev.uringactors.samples;

import org.apache.pekko.util.ByteString;

import java.time.Instant;
import java.util.Arrays;

/**
 * Responses as both HTTP samples write them: the status line, Server, Date (RFC 9110 asks it of an origin server
 * with a clock), the caller's header lines, and Content-Length unless there is none (a 304). One per connection:
 * it formats the date at most once a second.
 */
final class HttpResponses {
    /** The body of most errors. */
    static final byte[] NO_BODY = new byte[0];

    private long second = -1;
    private String date;
    /** The head being written: one connection writes one at a time, and sends a copy of exactly its bytes. */
    private final Head head = new Head();

    /** A response head; {@code headers} are whole lines, each ending in CRLF; {@code contentLength} -1 for none. */
    ByteString head(int status, String headers, long contentLength) {
        return start(status).lines(headers).end(contentLength);
    }

    /** A whole response with a text/plain {@code body} ({@link #NO_BODY} for most errors). */
    ByteString text(int status, byte[] body, String headers) {
        return start(status).header("Content-Type", "text/plain").lines(headers).end(body.length, body);
    }

    /** Starts a response head: its status line, Server and Date written; the caller adds its headers. */
    Head start(int status) {
        return head.start(status, date());
    }

    /** A response head written in place, ASCII (ISO-8859-1) text as bytes, with no string made of the whole. */
    static final class Head {
        private byte[] bytes = new byte[512];
        private int size;

        private Head start(int status, String date) {
            size = 0;
            return ascii("HTTP/1.1 ").number(status).ascii(" ").ascii(reason(status))
                    .ascii("\r\nServer: uring-actors\r\nDate: ").ascii(date).ascii("\r\n");
        }

        Head header(String name, String value) {
            return ascii(name).ascii(": ").ascii(value).ascii("\r\n");
        }

        /** Whole header lines, each ending in CRLF. */
        Head lines(String lines) {
            return ascii(lines);
        }

        /** The head, with Content-Length unless {@code contentLength} is -1 (a 304), and its blank line. */
        ByteString end(long contentLength) {
            return end(contentLength, NO_BODY);
        }

        /** The head and {@code body} (a small one: it is copied) after it, in one array. */
        ByteString end(long contentLength, byte[] body) {
            if (contentLength >= 0) {
                ascii("Content-Length: ").number(contentLength).ascii("\r\n");
            }
            ascii("\r\n");
            byte[] response = Arrays.copyOf(bytes, size + body.length);
            System.arraycopy(body, 0, response, size, body.length);
            return ByteString.fromArrayUnsafe(response); // never written again
        }

        private Head ascii(String text) {
            room(text.length());
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                bytes[size++] = (byte) (c <= 0xff ? c : '?'); // the text was read from bytes as ISO-8859-1
            }
            return this;
        }

        private Head number(long n) {
            return ascii(Long.toString(n));
        }

        private void room(int more) {
            if (size + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(size + more, 2 * bytes.length));
            }
        }
    }

    /** The Date header's value: the same String for the whole of a second, so that a caller can cache by it. */
    String date() {
        Instant now = Instant.now();
        if (now.getEpochSecond() != second) {
            second = now.getEpochSecond();
            date = FileValidators.httpDate(now);
        }
        return date;
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 206 -> "Partial Content";
            case 301 -> "Moved Permanently";
            case 304 -> "Not Modified";
            case 400 -> "Bad Request";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 413 -> "Content Too Large";
            case 414 -> "URI Too Long";
            case 416 -> "Range Not Satisfiable";
            case 417 -> "Expectation Failed";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 505 -> "HTTP Version Not Supported";
            default -> "Error";
        };
    }
}
