package dev.uringactors.samples;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * The keys of one shard and the single-key commands on them, answered as redis-server answers them (types,
 * errors, TTL rules). Not thread-safe: its shard actor owns it. Times are in milliseconds of the wall clock, as
 * Redis keeps expiry times, so that an append-only file replayed on another node keeps its deadlines.
 */
final class KvShardState {
    /** A value and its expiry time (epoch ms), 0 for none. */
    private record Entry(byte[] value, long expiresAt) {
        boolean expired(long now) {
            return expiresAt != 0 && expiresAt <= now;
        }
    }

    /** What a command did: its reply, and whether it changed the store (then the log records it). */
    record Result(byte[] reply, boolean write) {
    }

    private static final byte[] SYNTAX = RespOut.errorReply("ERR syntax error");
    private static final byte[] NOT_INTEGER = RespOut.errorReply("ERR value is not an integer or out of range");
    private static final byte[] OVERFLOW = RespOut.errorReply("ERR increment or decrement would overflow");
    private static final byte[] MINUS_ONE = RespOut.integerReply(-1);
    private static final byte[] MINUS_TWO = RespOut.integerReply(-2);

    private static final byte[] SET = {'S', 'E', 'T'};
    private static final byte[] DEL = {'D', 'E', 'L'};
    private static final byte[] PXAT = {'P', 'X', 'A', 'T'};

    private final Map<KvKey, Entry> entries = new HashMap<>();

    int size(long now) {
        entries.values().removeIf(e -> e.expired(now));
        return entries.size();
    }

    /**
     * Removes up to {@code budget} expired keys, so that keys nobody reads again do not stay for ever; returns
     * how many it removed.
     */
    int expireSome(long now, int budget) {
        int removed = 0;
        int looked = 0;
        for (Iterator<Entry> i = entries.values().iterator(); i.hasNext() && looked < budget; looked++) {
            if (i.next().expired(now)) {
                i.remove();
                removed++;
            }
        }
        return removed;
    }

    /**
     * Runs a single-key command ({@code args[0]} upper case, its arity already checked by the caller, the key in
     * {@code args[1]}).
     */
    Result execute(String name, byte[][] args, long now) {
        KvKey key = new KvKey(args[1]);
        Entry entry = entries.get(key);
        if (entry != null && entry.expired(now)) {
            entries.remove(key);
            entry = null;
        }
        return switch (name) {
            case "GET" -> read(RespOut.bulkReply(entry == null ? null : entry.value()));
            case "EXISTS" -> read(RespOut.integerReply(entry == null ? 0 : 1));
            case "DEL" -> entry == null ? read(RespOut.ZERO) : written(RespOut.ONE, entries.remove(key) != null);
            case "SET" -> set(key, entry, args, now);
            case "INCR" -> incrementBy(key, entry, 1);
            case "DECR" -> incrementBy(key, entry, -1);
            case "INCRBY", "DECRBY" -> {
                Long by = integer(args[2]);
                if (by == null || (name.equals("DECRBY") && by == Long.MIN_VALUE)) {
                    yield read(by == null ? NOT_INTEGER : RespOut.errorReply("ERR decrement would overflow"));
                }
                yield incrementBy(key, entry, name.equals("DECRBY") ? -by : by);
            }
            case "EXPIRE", "PEXPIRE" -> expire(key, entry, args[2], name.equals("EXPIRE") ? 1000 : 1, now);
            case "TTL", "PTTL" -> read(entry == null ? MINUS_TWO : entry.expiresAt() == 0 ? MINUS_ONE
                    : RespOut.integerReply(name.equals("TTL") ? (entry.expiresAt() - now + 500) / 1000
                    : entry.expiresAt() - now));
            default -> throw new IllegalArgumentException("not a single-key command: " + name);
        };
    }

    private static Result read(byte[] reply) {
        return new Result(reply, false);
    }

    private static Result written(byte[] reply, boolean write) {
        return new Result(reply, write);
    }

    /** SET key value [NX|XX] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL] [GET] */
    private Result set(KvKey key, Entry entry, byte[][] args, long now) {
        boolean nx = false;
        boolean xx = false;
        boolean keepTtl = false;
        boolean get = false;
        long expiresAt = 0;
        boolean expirySet = false;
        for (int i = 3; i < args.length; i++) {
            String option = ascii(args[i]).toUpperCase(Locale.ROOT);
            boolean hasNext = i + 1 < args.length;
            switch (option) {
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "GET" -> get = true;
                case "KEEPTTL" -> {
                    if (expirySet) {
                        return read(SYNTAX);
                    }
                    keepTtl = true;
                }
                case "EX", "PX", "EXAT", "PXAT" -> {
                    if (!hasNext || expirySet || keepTtl) {
                        return read(SYNTAX);
                    }
                    Long n = integer(args[++i]);
                    if (n == null) {
                        return read(NOT_INTEGER);
                    }
                    long scale = option.startsWith("E") ? 1000 : 1;
                    if (n <= 0 || n > Long.MAX_VALUE / scale - (option.endsWith("AT") ? 0 : now)) {
                        return read(RespOut.errorReply("ERR invalid expire time in 'set' command"));
                    }
                    expiresAt = option.endsWith("AT") ? n * scale : now + n * scale;
                    expirySet = true;
                }
                default -> {
                    return read(SYNTAX);
                }
            }
        }
        if (nx && xx) {
            return read(SYNTAX);
        }
        byte[] old = entry == null ? null : entry.value();
        if ((nx && entry != null) || (xx && entry == null)) {
            return read(get ? RespOut.bulkReply(old) : RespOut.NULL_BULK);
        }
        long keep = keepTtl && entry != null ? entry.expiresAt() : 0;
        entries.put(key, new Entry(args[2], expirySet ? expiresAt : keep));
        return written(get ? RespOut.bulkReply(old) : RespOut.OK, true);
    }

    private Result incrementBy(KvKey key, Entry entry, long by) {
        long current = 0;
        if (entry != null) {
            Long n = integer(entry.value());
            if (n == null) {
                return read(NOT_INTEGER);
            }
            current = n;
        }
        long next;
        try {
            next = Math.addExact(current, by);
        } catch (ArithmeticException e) {
            return read(OVERFLOW);
        }
        entries.put(key, new Entry(Long.toString(next).getBytes(StandardCharsets.US_ASCII),
                entry == null ? 0 : entry.expiresAt()));
        return written(RespOut.integerReply(next), true);
    }

    private Result expire(KvKey key, Entry entry, byte[] amount, long scale, long now) {
        Long n = integer(amount);
        if (n == null) {
            return read(NOT_INTEGER);
        }
        long at;
        try {
            at = Math.addExact(now, Math.multiplyExact(n, scale));
        } catch (ArithmeticException e) {
            return read(RespOut.errorReply("ERR invalid expire time in '%s' command", scale == 1 ? "pexpire" : "expire"));
        }
        return setExpiry(key, entry, at, now);
    }

    /** A deadline in the past deletes the key, as redis-server does. */
    private Result setExpiry(KvKey key, Entry entry, long at, long now) {
        if (entry == null) {
            return read(RespOut.ZERO);
        }
        if (at <= now) {
            entries.remove(key);
        } else {
            entries.put(key, new Entry(entry.value(), at));
        }
        return written(RespOut.ONE, true);
    }

    /**
     * Appends to {@code out} the command that makes {@code key} what it is now: SET with its value and deadline,
     * or DEL. The log records that after each write, so that replaying it is the same whatever the write was.
     */
    void record(byte[] key, RespOut out) {
        Entry e = entries.get(new KvKey(key));
        if (e == null) {
            out.arrayHeader(2).bulk(DEL).bulk(key);
        } else {
            set(out, key, e);
        }
    }

    /** Every live key as a SET, for a log rewrite. */
    void snapshot(RespOut out, long now) {
        entries.forEach((k, e) -> {
            if (!e.expired(now)) {
                set(out, k.bytes(), e);
            }
        });
    }

    private static void set(RespOut out, byte[] key, Entry e) {
        out.arrayHeader(e.expiresAt() == 0 ? 3 : 5).bulk(SET).bulk(key).bulk(e.value());
        if (e.expiresAt() != 0) {
            out.bulk(PXAT).bulk(Long.toString(e.expiresAt()));
        }
    }

    /** A decimal long as Redis takes it (no sign of plus, no spaces, no leading zeros), or null. */
    static Long integer(byte[] b) {
        if (b.length == 0 || b.length > 20) {
            return null;
        }
        String s = ascii(b);
        if ((s.length() > 1 && s.charAt(0) == '0') || s.startsWith("+") || s.startsWith("-0")) {
            return null;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static String ascii(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
