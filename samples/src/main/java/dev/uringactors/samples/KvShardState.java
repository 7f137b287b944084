package dev.uringactors.samples;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The keys of one shard and the single-key commands on them, answered as redis-server answers them (types,
 * errors, TTL rules). Not thread-safe: its shard actor owns it. Times are in milliseconds of the wall clock, as
 * Redis keeps expiry times, so that an append-only file replayed on another node keeps its deadlines.
 */
final class KvShardState {
    /**
     * A value and its expiry time (epoch ms), 0 for none. As for redis-server (keyIsExpired), a key is gone once
     * the clock is past its deadline, not at it.
     */
    private record Entry(byte[] value, long expiresAt) {
        boolean expired(long now) {
            return expiresAt != 0 && expiresAt < now;
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
    private static final byte[] FLUSHALL = "FLUSHALL".getBytes(StandardCharsets.US_ASCII);

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
     * Runs a command of this shard ({@code args[0]} upper case, its arity already checked by the caller): a
     * single-key command, its key in {@code args[1]}; or this shard's part of a command of every shard (KEYS,
     * FLUSHALL, the keyspace figures of INFO).
     */
    Result execute(String name, byte[][] args, long now) {
        switch (name) {
            case "KEYS" -> {
                return read(keys(args[1], now));
            }
            case "FLUSHALL" -> {
                boolean had = !entries.isEmpty();
                entries.clear();
                return written(RespOut.OK, had);
            }
            case "KEYSPACE" -> {
                return read(keyspace(now));
            }
            default -> {
            }
        }
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
            case "SETEX", "PSETEX" -> setex(name, key, args, now);
            case "GETEX" -> getex(key, entry, args, now);
            case "GETDEL" -> entry == null ? read(RespOut.NULL_BULK)
                    : written(RespOut.bulkReply(entries.remove(key).value()), true);
            case "APPEND" -> append(key, entry, args);
            case "STRLEN" -> read(RespOut.integerReply(entry == null ? 0 : entry.value().length));
            case "INCR" -> incrementBy(key, entry, 1);
            case "DECR" -> incrementBy(key, entry, -1);
            case "INCRBY", "DECRBY" -> {
                Long by = integer(args[2]);
                if (by == null || (name.equals("DECRBY") && by == Long.MIN_VALUE)) {
                    yield read(by == null ? NOT_INTEGER : RespOut.errorReply("ERR decrement would overflow"));
                }
                yield incrementBy(key, entry, name.equals("DECRBY") ? -by : by);
            }
            case "EXPIRE", "PEXPIRE" -> expire(name, key, entry, args, now);
            case "TTL", "PTTL" -> read(entry == null ? MINUS_TWO : entry.expiresAt() == 0 ? MINUS_ONE
                    : RespOut.integerReply(name.equals("TTL") ? (entry.expiresAt() - now + 500) / 1000
                    : entry.expiresAt() - now));
            default -> throw new IllegalArgumentException("not a command of a shard: " + name);
        };
    }

    private static Result read(byte[] reply) {
        return new Result(reply, false);
    }

    private static Result written(byte[] reply, boolean write) {
        return new Result(reply, write);
    }

    /** Options of SET (from its fourth argument) and GETEX (from its third), as redis-server 7.0 reads them. */
    private static final class Options {
        boolean nx;
        boolean xx;
        boolean get;
        boolean keepTtl;
        boolean persist;
        /** EX, PX, EXAT or PXAT, or null; its argument in {@link #expire}. */
        String unit;
        byte[] expire;

        /**
         * Reads {@code args} from {@code from}: null, or the syntax error. Like redis-server's
         * parseExtendedStringArgumentsOrReply, an option is refused only by the ones before it (so EX 10 EX 20 is
         * taken, the last one counting), and the expire time is not looked at yet.
         */
        byte[] parse(byte[][] args, int from, boolean isSet) {
            for (int i = from; i < args.length; i++) {
                String o = cString(args[i]).toUpperCase(Locale.ROOT); // compared as C strings, as there
                boolean hasNext = i + 1 < args.length;
                boolean expiry = unit != null;
                if (o.equals("NX") && isSet && !xx) {
                    nx = true;
                } else if (o.equals("XX") && isSet && !nx) {
                    xx = true;
                } else if (o.equals("GET") && isSet) {
                    get = true;
                } else if (o.equals("KEEPTTL") && isSet && !persist && !expiry) {
                    keepTtl = true;
                } else if (o.equals("PERSIST") && !isSet && !expiry && !keepTtl) {
                    persist = true;
                } else if ((o.equals("EX") || o.equals("PX") || o.equals("EXAT") || o.equals("PXAT")) && !keepTtl
                        && !persist && (unit == null || unit.equals(o)) && hasNext) {
                    unit = o;
                    expire = args[++i];
                } else {
                    return SYNTAX;
                }
            }
            return null;
        }

        boolean absolute() {
            return unit.endsWith("AT");
        }

        /** The deadline the expire time says, or why it is refused: getExpireMillisecondsOrReply of 7.0. */
        Deadline deadline(String command, long now) {
            Long n = integer(expire);
            if (n == null) {
                return Deadline.refused(NOT_INTEGER);
            }
            boolean seconds = unit.startsWith("E");
            if (n <= 0 || (seconds && n > Long.MAX_VALUE / 1000)) {
                return Deadline.refused(invalidExpireTime(command));
            }
            long ms = seconds ? n * 1000 : n;
            if (!absolute()) {
                ms += now; // as in C, an overflow goes negative
            }
            return ms <= 0 ? Deadline.refused(invalidExpireTime(command)) : new Deadline(ms, null);
        }
    }

    /** An expire time read from a command: {@code at} in epoch ms, or the error {@code refusal} it is answered. */
    private record Deadline(long at, byte[] refusal) {
        static Deadline refused(byte[] reply) {
            return new Deadline(0, reply);
        }
    }

    private static byte[] invalidExpireTime(String command) {
        return RespOut.errorReply("ERR invalid expire time in '%s' command", command.toLowerCase(Locale.ROOT));
    }

    /** SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL] */
    private Result set(KvKey key, Entry entry, byte[][] args, long now) {
        Options o = new Options();
        byte[] error = o.parse(args, 3, true);
        if (error != null) {
            return read(error);
        }
        long expiresAt = 0;
        if (o.unit != null) {
            Deadline deadline = o.deadline("set", now);
            if (deadline.refusal() != null) {
                return read(deadline.refusal());
            }
            expiresAt = deadline.at();
        }
        byte[] old = entry == null ? null : entry.value();
        if ((o.nx && entry != null) || (o.xx && entry == null)) {
            return read(o.get ? RespOut.bulkReply(old) : RespOut.NULL_BULK);
        }
        long keep = o.keepTtl && entry != null ? entry.expiresAt() : 0;
        entries.put(key, new Entry(args[2], o.unit != null ? expiresAt : keep));
        return written(o.get ? RespOut.bulkReply(old) : RespOut.OK, true);
    }

    /** SETEX key seconds value, PSETEX key milliseconds value: SET with EX or PX, as redis-server runs them. */
    private Result setex(String name, KvKey key, byte[][] args, long now) {
        Options o = new Options();
        o.unit = name.equals("SETEX") ? "EX" : "PX";
        o.expire = args[2];
        Deadline deadline = o.deadline(name, now);
        if (deadline.refusal() != null) {
            return read(deadline.refusal());
        }
        entries.put(key, new Entry(args[3], deadline.at()));
        return written(RespOut.OK, true);
    }

    /** GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]: a deadline past (EXAT, PXAT) deletes the key. */
    private Result getex(KvKey key, Entry entry, byte[][] args, long now) {
        Options o = new Options();
        byte[] error = o.parse(args, 2, false);
        if (error != null) {
            return read(error);
        }
        if (entry == null) {
            return read(RespOut.NULL_BULK);
        }
        long at = 0;
        if (o.unit != null) {
            Deadline deadline = o.deadline("getex", now);
            if (deadline.refusal() != null) {
                return read(deadline.refusal());
            }
            at = deadline.at();
        }
        byte[] reply = RespOut.bulkReply(entry.value());
        if (o.unit != null && o.absolute() && at <= now) {
            entries.remove(key);
            return written(reply, true);
        } else if (o.unit != null) {
            entries.put(key, new Entry(entry.value(), at));
            return written(reply, true);
        } else if (o.persist && entry.expiresAt() != 0) {
            entries.put(key, new Entry(entry.value(), 0));
            return written(reply, true);
        }
        return read(reply);
    }

    /**
     * APPEND key value; the connection adds the longest string its node takes (samples.kv.max-bulk-length), past
     * which the string is refused as redis-server refuses one past proto-max-bulk-len.
     */
    private Result append(KvKey key, Entry entry, byte[][] args) {
        byte[] tail = args[2];
        long limit = args.length > 3 ? integer(args[3]) : Integer.MAX_VALUE - 64;
        if (entry == null) {
            entries.put(key, new Entry(tail, 0));
            return written(RespOut.integerReply(tail.length), true);
        }
        long length = (long) entry.value().length + tail.length;
        if (length > limit) {
            return read(RespOut.errorReply("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
        }
        byte[] value = Arrays.copyOf(entry.value(), (int) length);
        System.arraycopy(tail, 0, value, entry.value().length, tail.length);
        entries.put(key, new Entry(value, entry.expiresAt()));
        return written(RespOut.integerReply(length), true);
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

    /**
     * EXPIRE key seconds [NX|XX|GT|LT], PEXPIRE key milliseconds [...]: expireGenericCommand of redis-server 7.0,
     * its checks in its order (the options, then the number, then the key). A key without a TTL has an infinite
     * one: GT never sets it, LT always does. A deadline in the past deletes the key.
     */
    private Result expire(String name, KvKey key, Entry entry, byte[][] args, long now) {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        for (int i = 3; i < args.length; i++) {
            switch (cString(args[i]).toUpperCase(Locale.ROOT)) { // strcasecmp, as there
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "GT" -> gt = true;
                case "LT" -> lt = true;
                default -> {
                    return read(RespOut.errorReply("ERR Unsupported option " + cString(args[i])));
                }
            }
        }
        if (nx && (xx || gt || lt)) {
            return read(RespOut.errorReply("ERR NX and XX, GT or LT options at the same time are not compatible"));
        }
        if (gt && lt) {
            return read(RespOut.errorReply("ERR GT and LT options at the same time are not compatible"));
        }
        Long n = integer(args[2]);
        if (n == null) {
            return read(NOT_INTEGER);
        }
        long at;
        try {
            at = Math.addExact(now, Math.multiplyExact(n, name.equals("EXPIRE") ? 1000L : 1L));
        } catch (ArithmeticException e) {
            return read(invalidExpireTime(name));
        }
        if (entry == null) {
            return read(RespOut.ZERO);
        }
        long current = entry.expiresAt() == 0 ? -1 : entry.expiresAt();
        if ((nx && current != -1) || (xx && current == -1) || (gt && (current == -1 || at <= current))
                || (lt && current != -1 && at >= current)) {
            return read(RespOut.ZERO);
        }
        if (at <= now) {
            entries.remove(key);
        } else {
            entries.put(key, new Entry(entry.value(), at));
        }
        return written(RespOut.ONE, true);
    }

    /** KEYS pattern, over this shard's live keys: an array of those that match. */
    private byte[] keys(byte[] pattern, long now) {
        boolean all = pattern.length == 1 && pattern[0] == '*';
        List<byte[]> matched = new ArrayList<>();
        entries.forEach((k, e) -> {
            if (!e.expired(now) && (all || KvGlob.matches(pattern, k.bytes(), false))) {
                matched.add(k.bytes());
            }
        });
        RespOut out = new RespOut().arrayHeader(matched.size());
        matched.forEach(out::bulk);
        return out.toArray();
    }

    /** For INFO's keyspace: [keys, keys with a TTL, the sum of their TTLs in ms], of the live keys. */
    private byte[] keyspace(long now) {
        long keys = 0;
        long expires = 0;
        long ttls = 0;
        for (Entry e : entries.values()) {
            if (!e.expired(now)) {
                keys++;
                if (e.expiresAt() != 0) {
                    expires++;
                    ttls += e.expiresAt() - now;
                }
            }
        }
        return new RespOut().arrayHeader(3).integer(keys).integer(expires).integer(ttls).toArray();
    }

    /** The bytes up to the first NUL, as C's %s prints them (redis-server's error lines). */
    static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.ISO_8859_1);
    }

    /**
     * Appends to {@code out} the record of the write {@code args} just made: FLUSHALL for a FLUSHALL, else the
     * command that makes its key ({@code args[1]}) what it is now, SET with its value and deadline or DEL. The
     * log records that right after each write, so that replaying it is the same whatever the write was.
     */
    void record(byte[][] args, RespOut out) {
        if (Arrays.equals(args[0], FLUSHALL)) {
            out.arrayHeader(1).bulk(FLUSHALL);
            return;
        }
        byte[] key = args[1];
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
        long n = integer(b, 0, b.length, 0);
        return n != 0 || (b.length == 1 && b[0] == '0') ? n : null; // only "0" itself reads as 0
    }

    /**
     * The number {@code b[from, to)} spells as redis-server's string2ll reads it (digits after an optional '-',
     * no leading zero, no "-0", within a long), or {@code orElse} if it spells none.
     */
    static long integer(byte[] b, int from, int to, long orElse) {
        if (to - from == 0 || to - from > 20) {
            return orElse;
        }
        boolean negative = b[from] == '-';
        int i = negative ? from + 1 : from;
        if (i == to || (b[i] == '0' && (to - i > 1 || negative))) {
            return orElse;
        }
        long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
        long n = 0; // accumulated negative, so that Long.MIN_VALUE fits
        for (; i < to; i++) {
            int digit = b[i] - '0';
            if (digit < 0 || digit > 9 || n < limit / 10 || n * 10 < limit + digit) {
                return orElse;
            }
            n = n * 10 - digit;
        }
        return negative ? n : -n;
    }

    static String ascii(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
