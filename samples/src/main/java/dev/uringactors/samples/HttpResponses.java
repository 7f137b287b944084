package dev.uringactors.samples;

import org.apache.pekko.util.ByteString;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

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

    /** A response head; {@code headers} are whole lines, each ending in CRLF; {@code contentLength} -1 for none. */
    ByteString head(int status, String headers, long contentLength) {
        StringBuilder head = new StringBuilder(256).append("HTTP/1.1 ").append(status).append(' ')
                .append(reason(status)).append("\r\nServer: uring-actors\r\nDate: ").append(date()).append("\r\n")
                .append(headers);
        if (contentLength >= 0) {
            head.append("Content-Length: ").append(contentLength).append("\r\n");
        }
        return ByteString.fromString(head.append("\r\n").toString(), StandardCharsets.US_ASCII);
    }

    /** A whole response with a text/plain {@code body} ({@link #NO_BODY} for most errors). */
    ByteString text(int status, byte[] body, String headers) {
        return head(status, "Content-Type: text/plain\r\n" + headers, body.length).concat(ByteString.fromArray(body));
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
