package dev.uringactors.samples;

import org.apache.pekko.util.ByteString;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** RESP2 replies, written into one growing array that a connection sends as one write. */
final class RespOut {
    private static final byte[] CRLF = {'\r', '\n'};
    static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    static final byte[] ZERO = ":0\r\n".getBytes(StandardCharsets.US_ASCII);
    static final byte[] ONE = ":1\r\n".getBytes(StandardCharsets.US_ASCII);

    private byte[] bytes = new byte[256];
    private int size;

    int size() {
        return size;
    }

    /** What was written, handed over; this is empty again. */
    ByteString take() {
        ByteString out = ByteString.fromArray(bytes, 0, size);
        size = 0;
        return out;
    }

    /** What was written, as an array of its own. */
    byte[] toArray() {
        return Arrays.copyOf(bytes, size);
    }

    RespOut raw(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
        return this;
    }

    RespOut simple(String s) {
        return line('+', s);
    }

    /**
     * An error line; {@code message} starts with its code (ERR, WRONGTYPE, ...). A CR or LF in it (from a
     * client's argument) is sent as a space, as redis-server's addReplyErrorFormat does.
     */
    RespOut error(String message) {
        return line('-', message.replace('\r', ' ').replace('\n', ' '));
    }

    RespOut integer(long n) {
        return line(':', Long.toString(n));
    }

    RespOut arrayHeader(int n) {
        return line('*', Integer.toString(n));
    }

    RespOut bulk(byte[] b) {
        if (b == null) {
            return raw(NULL_BULK);
        }
        line('$', Integer.toString(b.length));
        raw(b);
        return raw(CRLF);
    }

    RespOut bulk(String s) {
        return bulk(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A line of one byte per char: the ISO-8859-1 text that client bytes were read as goes out as those bytes. */
    private RespOut line(char type, String text) {
        byte[] t = text.getBytes(StandardCharsets.ISO_8859_1);
        ensure(t.length + 3);
        bytes[size++] = (byte) type;
        System.arraycopy(t, 0, bytes, size, t.length);
        size += t.length;
        bytes[size++] = '\r';
        bytes[size++] = '\n';
        return this;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(size + more, bytes.length * 2));
        }
    }

    /** One reply alone. */
    static byte[] errorReply(String message, Object... args) {
        return new RespOut().error(args.length == 0 ? message : String.format(message, args)).toArray();
    }

    static byte[] integerReply(long n) {
        return n == 0 ? ZERO : n == 1 ? ONE : new RespOut().integer(n).toArray();
    }

    static byte[] bulkReply(byte[] b) {
        return new RespOut().bulk(b).toArray();
    }
}
