package dev.uringactors.samples;

import org.apache.pekko.util.ByteString;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads RESP2 requests off one connection's bytes as redis-server 7.0 reads them: multibulk
 * ({@code *N\r\n$L\r\n...}) and inline (a line of words, quoted as redis-server quotes them). Fed chunks as
 * they arrive, it keeps only the unfinished tail, and resumes a half-read command where it stopped. Every length
 * is checked against {@link RespLimits} when it is announced, before any of its bytes are held, so a client
 * announcing a gigabyte costs nothing; after a {@link Outcome.ProtocolError} the connection must be closed (as
 * redis-server does), since nothing after it can be framed.
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
            int cr = headerEnd();
            if (cr == -1) {
                return end - start > limits.maxInline()
                        ? new Outcome.ProtocolError("Protocol error: too big mbulk count string") : null;
            }
            if (cr == -2) {
                return null;
            }
            // Not a number reads as too many; any count below 1 is no command, as for redis-server.
            long count = KvShardState.integer(buffer, start + 1, cr, Long.MAX_VALUE);
            if (count > limits.maxElements()) {
                return new Outcome.ProtocolError("Protocol error: invalid multibulk length");
            }
            start = cr + 2;
            if (count > 0) { // *0 and *-1 (any count below 1) are no command, as for redis-server
                args = new ArrayList<>((int) Math.min(count, FIRST_ARGS));
                elementsLeft = (int) count;
                requestBytes = 0;
            }
        }
        while (elementsLeft > 0) {
            if (bulkLength < 0) {
                int cr = headerEnd();
                if (cr == -1) {
                    return end - start > limits.maxInline()
                            ? new Outcome.ProtocolError("Protocol error: too big bulk count string") : null;
                }
                if (cr == -2) {
                    return null;
                }
                if (buffer[start] != '$') {
                    return new Outcome.ProtocolError("Protocol error: expected '$', got '"
                            + (char) (buffer[start] & 0xff) + "'");
                }
                long length = KvShardState.integer(buffer, start + 1, cr, -1);
                if (length < 0 || length > limits.maxBulkLength()
                        || requestBytes + length > limits.maxRequest()) {
                    return new Outcome.ProtocolError("Protocol error: invalid bulk length");
                }
                start = cr + 2;
                bulkLength = (int) length;
                requestBytes += length;
            }
            if (end - start < bulkLength + 2) {
                return null;
            }
            byte[] arg = new byte[bulkLength];
            System.arraycopy(buffer, start, arg, 0, bulkLength);
            args.add(arg);
            start += bulkLength + 2; // the two bytes after it, as redis-server, unread: CRLF, or whatever they are
            bulkLength = -1;
            elementsLeft--;
        }
        Outcome command = new Outcome.Command(args);
        args = null;
        return command;
    }

    /**
     * An inline command: a line up to LF (a CR before it dropped), split into words as redis-server splits it
     * (sdssplitargs); {@link #EMPTY_LINE} for a line of none, which is no command. As redis-server looks for the
     * LF with strchr, a NUL before it hides it: the line is not over until it is too big.
     */
    private Outcome inline() {
        int newline = -1;
        int limit = Math.min(end, start + limits.maxInline() + 1);
        for (int i = start; i < limit && buffer[i] != 0; i++) {
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
        List<byte[]> words = splitArgs(buffer, start, lineEnd);
        if (words == null) {
            return new Outcome.ProtocolError("Protocol error: unbalanced quotes in request");
        }
        start = newline + 1;
        return words.isEmpty() ? EMPTY_LINE : new Outcome.Command(words);
    }

    /**
     * The words of {@code b[from, to)} as redis-server's sdssplitargs makes them, or null for unbalanced quotes.
     * Words are separated by white space (space, tab, CR, LF, VT, FF; a word itself ends only at space, tab, CR
     * or LF); a word may hold "double quoted" parts, with \n \r \t \b \a \xHH and \ before any other byte
     * taking it as it is, and 'single quoted' parts, with only \' escaped; a closing quote must be followed by
     * white space or the end of the line.
     */
    /** Whether the closing quote at {@code p} may end its word: white space or the end of the line follows. */
    private static boolean endsWord(byte[] b, int p, int to) {
        int next = at(b, p + 1, to);
        return next == 0 || isSpace((byte) next);
    }

    static List<byte[]> splitArgs(byte[] b, int from, int to) {
        List<byte[]> words = new ArrayList<>();
        java.io.ByteArrayOutputStream word = new java.io.ByteArrayOutputStream();
        int p = from;
        while (true) {
            while (p < to && isSpace(b[p])) {
                p++;
            }
            if (p == to) {
                return words;
            }
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            word.reset();
            while (!done) {
                int c = at(b, p, to);
                if (inDouble) {
                    if (c == '\\' && at(b, p + 1, to) == 'x' && hex(at(b, p + 2, to)) >= 0
                            && hex(at(b, p + 3, to)) >= 0) {
                        word.write(hex(at(b, p + 2, to)) * 16 + hex(at(b, p + 3, to)));
                        p += 3;
                    } else if (c == '\\' && at(b, p + 1, to) != 0) {
                        p++;
                        int e = at(b, p, to);
                        word.write(switch (e) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> e;
                        });
                    } else if (c == '"') {
                        if (!endsWord(b, p, to)) {
                            return null;
                        }
                        done = true;
                    } else if (c == 0) {
                        return null;
                    } else {
                        word.write(c);
                    }
                } else if (inSingle) {
                    if (c == '\\' && at(b, p + 1, to) == '\'') {
                        p++;
                        word.write('\'');
                    } else if (c == '\'') {
                        if (!endsWord(b, p, to)) {
                            return null;
                        }
                        done = true;
                    } else if (c == 0) {
                        return null;
                    } else {
                        word.write(c);
                    }
                } else {
                    switch (c) {
                        case ' ', '\n', '\r', '\t', 0 -> done = true;
                        case '"' -> inDouble = true;
                        case '\'' -> inSingle = true;
                        default -> word.write(c);
                    }
                }
                if (p < to) {
                    p++;
                }
            }
            words.add(word.toByteArray());
        }
    }

    /** The byte at {@code i} (0 to 255), or 0 at the end, as a C string reads. */
    private static int at(byte[] b, int i, int to) {
        return i < to ? b[i] & 0xff : 0;
    }

    /** C's isspace in the C locale. */
    private static boolean isSpace(byte c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    private static int hex(int c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F'
                ? c - 'A' + 10 : -1;
    }

    /**
     * The CR ending the {@code *N} or {@code $L} line at {@code start}, found as redis-server finds it (strchr:
     * the first CR, unless a NUL comes first; the byte after the CR is taken for its LF unread): -1 if there is
     * none yet, -2 if the byte after it has not come yet.
     */
    private int headerEnd() {
        for (int i = start; i < end && buffer[i] != 0; i++) {
            if (buffer[i] == '\r') {
                return i + 1 < end ? i : -2;
            }
        }
        return -1;
    }
}
