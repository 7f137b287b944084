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

    private byte[] bytes;
    private int size;

    RespOut() {
        this(256);
    }

    /** Room for {@code capacity} bytes: a reply of known size is made in an array that it fills exactly. */
    private RespOut(int capacity) {
        bytes = new byte[capacity];
    }

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
        return number(':', n);
    }

    RespOut arrayHeader(int n) {
        return number('*', n);
    }

    RespOut bulk(byte[] b) {
        if (b == null) {
            return raw(NULL_BULK);
        }
        number('$', b.length);
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

    /** A line of {@code type} and the decimal {@code n}, written in place (this runs for every reply). */
    private RespOut number(char type, long n) {
        int length = digits(n);
        ensure(length + 3);
        bytes[size] = (byte) type;
        if (n < 0) {
            bytes[size + 1] = '-';
        }
        int at = size + 1 + length;
        long rest = n;
        do {
            long quotient = rest / 10;
            bytes[--at] = (byte) ('0' + Math.abs(rest - quotient * 10));
            rest = quotient;
        } while (rest != 0);
        size += 1 + length;
        bytes[size++] = '\r';
        bytes[size++] = '\n';
        return this;
    }

    /** The characters of {@code n} in decimal, its sign included: by comparisons, not divisions. */
    private static int digits(long n) {
        if (n < 0) {
            return n == Long.MIN_VALUE ? 20 : 1 + digits(-n);
        }
        int digits = 1;
        for (long bound = 10; digits < 19 && n >= bound; bound *= 10) {
            digits++;
        }
        return digits;
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
        return n == 0 ? ZERO : n == 1 ? ONE : new RespOut(digits(n) + 3).integer(n).bytes;
    }

    static byte[] bulkReply(byte[] b) {
        return b == null ? NULL_BULK : new RespOut(digits(b.length) + b.length + 5).bulk(b).bytes;
    }
}
