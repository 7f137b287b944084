package dev.uringactors.samples;

import org.apache.pekko.util.ByteString;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads RESP2 requests off one connection's bytes: multibulk ({@code *N\r\n$L\r\n...}) and inline (a line of
 * words). Fed chunks as they arrive, it keeps only the unfinished tail, and resumes a half-read command where it
 * stopped. Every length is checked against {@link RespLimits} when it is announced, before any of its bytes are
 * held, so a client announcing a gigabyte costs nothing; after a {@link Outcome.ProtocolError} the connection
 * must be closed (as redis-server does), since nothing after it can be framed.
 */
final class RespParser {
    /** What {@link #next()} finds. */
    sealed interface Outcome {
        /** A whole command: its name and arguments, as sent. */
        record Command(List<byte[]> args) implements Outcome {
        }

        /** Bytes that are not RESP, or beyond a limit: {@code message} is the error line's text. */
        record ProtocolError(String message) implements Outcome {
        }
    }

    /** The longest {@code *N} or {@code $L} header line: a sign, 19 digits, CRLF, with room to spare. */
    private static final int MAX_HEADER = 32;
    private static final int FIRST_ARGS = 16;
    private static final Outcome EMPTY_LINE = new Outcome.Command(List.of());

    private final RespLimits limits;
    private byte[] buffer = new byte[4096];
    private int start;
    private int end;
    /** Arguments of the multibulk command being read; null between commands. */
    private List<byte[]> args;
    private int elementsLeft;
    private long requestBytes;
    /** The announced length of the bulk string being read, or -1 before its header. */
    private int bulkLength = -1;
    private boolean failed;

    RespParser(RespLimits limits) {
        this.limits = limits;
    }

    /** Adds received bytes; after a protocol error they are dropped. */
    void feed(ByteString data) {
        if (failed) {
            return;
        }
        int size = data.size();
        if (end + size > buffer.length) {
            makeRoom(size);
        }
        data.copyToArray(buffer, end, size);
        end += size;
    }

    /** Bytes held for a command not yet whole. */
    int buffered() {
        return end - start;
    }

    private void makeRoom(int size) {
        int held = end - start;
        if (held + size > buffer.length || start > buffer.length / 2) {
            byte[] grown = held + size > buffer.length
                    ? new byte[Math.max(held + size, Math.min(buffer.length * 2, Integer.MAX_VALUE - 8))] : buffer;
            System.arraycopy(buffer, start, grown, 0, held);
            buffer = grown;
        } else {
            System.arraycopy(buffer, start, buffer, 0, held);
        }
        start = 0;
        end = held;
    }

    /** The next whole command, a protocol error (then the same error forever), or null for more bytes needed. */
    Outcome next() {
        if (failed) {
            return new Outcome.ProtocolError("the connection had a protocol error");
        }
        Outcome outcome = parse();
        if (outcome instanceof Outcome.ProtocolError) {
            failed = true;
            args = null;
            start = end = 0;
            buffer = new byte[0];
        } else if (start == end && buffer.length > 64 * 1024) {
            buffer = new byte[4096]; // a big command is done: do not keep its room for the connection's life
            start = end = 0;
        }
        return outcome;
    }

    private Outcome parse() {
        while (args == null) {
            if (start == end) {
                return null;
            }
            if (buffer[start] != '*') {
                Outcome line = inline();
                if (line != EMPTY_LINE) {
                    return line;
                }
                continue;
            }
            int lineEnd = lineEnd(MAX_HEADER);
            if (lineEnd == -1) {
                return null;
            }
            if (lineEnd == -2) {
                return new Outcome.ProtocolError("Protocol error: too big mbulk count string");
            }
            long count = number(start + 1, lineEnd);
            if (count == Long.MIN_VALUE || count > limits.maxElements()) {
                return new Outcome.ProtocolError("Protocol error: invalid multibulk length");
            }
            start = lineEnd + 2;
            if (count > 0) { // *0 and *-1 (any count below 1) are no command, as for redis-server
                args = new ArrayList<>((int) Math.min(count, FIRST_ARGS));
                elementsLeft = (int) count;
                requestBytes = 0;
            }
        }
        while (elementsLeft > 0) {
            if (bulkLength < 0) {
                if (start == end) {
                    return null;
                }
                if (buffer[start] != '$') {
                    return new Outcome.ProtocolError("Protocol error: expected '$', got '"
                            + printable(buffer[start]) + "'");
                }
                int lineEnd = lineEnd(MAX_HEADER);
                if (lineEnd == -1) {
                    return null;
                }
                if (lineEnd == -2) {
                    return new Outcome.ProtocolError("Protocol error: too big bulk count string");
                }
                long length = number(start + 1, lineEnd);
                if (length < 0 || length > limits.maxBulkLength()
                        || requestBytes + length > limits.maxRequest()) {
                    return new Outcome.ProtocolError("Protocol error: invalid bulk length");
                }
                start = lineEnd + 2;
                bulkLength = (int) length;
                requestBytes += length;
            }
            if (end - start < bulkLength + 2) {
                return null;
            }
            if (buffer[start + bulkLength] != '\r' || buffer[start + bulkLength + 1] != '\n') {
                return new Outcome.ProtocolError("Protocol error: bulk string not followed by CRLF");
            }
            byte[] arg = new byte[bulkLength];
            System.arraycopy(buffer, start, arg, 0, bulkLength);
            args.add(arg);
            start += bulkLength + 2;
            bulkLength = -1;
            elementsLeft--;
        }
        Outcome command = new Outcome.Command(args);
        args = null;
        return command;
    }

    /**
     * An inline command: words separated by spaces or tabs up to LF (CR before it dropped); {@link #EMPTY_LINE}
     * for a line of none, which is no command.
     */
    private Outcome inline() {
        int newline = -1;
        int limit = Math.min(end, start + limits.maxInline() + 1);
        for (int i = start; i < limit; i++) {
            if (buffer[i] == '\n') {
                newline = i;
                break;
            }
        }
        if (newline == -1) {
            return end - start > limits.maxInline()
                    ? new Outcome.ProtocolError("Protocol error: too big inline request") : null;
        }
        int lineEnd = newline > start && buffer[newline - 1] == '\r' ? newline - 1 : newline;
        List<byte[]> words = new ArrayList<>();
        int word = -1;
        for (int i = start; i <= lineEnd; i++) {
            boolean space = i == lineEnd || buffer[i] == ' ' || buffer[i] == '\t';
            if (space && word >= 0) {
                byte[] w = new byte[i - word];
                System.arraycopy(buffer, word, w, 0, w.length);
                words.add(w);
                word = -1;
            } else if (!space && word < 0) {
                word = i;
            }
        }
        start = newline + 1;
        return words.isEmpty() ? EMPTY_LINE : new Outcome.Command(words);
    }

    /**
     * The index of the CR of a CRLF ending the line at {@code start}, within {@code max} bytes; -1 if the line
     * may still end, -2 if it is longer than that.
     */
    private int lineEnd(int max) {
        int limit = Math.min(end - 1, start + max);
        for (int i = start; i < limit; i++) {
            if (buffer[i] == '\r' && buffer[i + 1] == '\n') {
                return i;
            }
        }
        return end - start > max ? -2 : -1;
    }

    /** The decimal number in {@code [from, to)}, or Long.MIN_VALUE if it is not one. */
    private long number(int from, int to) {
        boolean negative = from < to && buffer[from] == '-';
        int i = negative ? from + 1 : from;
        if (i == to || to - i > 18) {
            return Long.MIN_VALUE;
        }
        long value = 0;
        for (; i < to; i++) {
            int digit = buffer[i] - '0';
            if (digit < 0 || digit > 9) {
                return Long.MIN_VALUE;
            }
            value = value * 10 + digit;
        }
        return negative ? -value : value;
    }

    private static String printable(byte b) {
        return b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff);
    }
}
