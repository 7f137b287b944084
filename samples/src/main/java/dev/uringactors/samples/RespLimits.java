package dev.uringactors.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;

/**
 * How much of a request the kv sample's RESP parser takes ({@code samples.kv}): a request beyond these is
 * answered with {@code -ERR Protocol error} and its connection closed, before the bytes it announces are held.
 *
 * @param maxBulkLength the longest bulk string (an argument), in bytes
 * @param maxElements   the most arguments in one command
 * @param maxInline     the longest inline command line (and the longest {@code *} or {@code $} header)
 * @param maxRequest    the most bytes of bulk strings one command holds
 */
record RespLimits(int maxBulkLength, int maxElements, int maxInline, long maxRequest) {
    RespLimits {
        positive("max-bulk-length", maxBulkLength);
        positive("max-elements", maxElements);
        positive("max-inline-length", maxInline);
        positive("max-request-size", maxRequest);
        if (maxRequest < maxBulkLength) {
            throw new ConfigException.BadValue("samples.kv.max-request-size",
                    "must be at least samples.kv.max-bulk-length (" + maxBulkLength + ")");
        }
    }

    /** The limits under {@code samples.kv}; a bad value fails naming its path. */
    static RespLimits from(Config config) {
        Config kv = config.getConfig("samples.kv");
        return new RespLimits(intBytes(kv, "max-bulk-length"), kv.getInt("max-elements"),
                intBytes(kv, "max-inline-length"), kv.getBytes("max-request-size"));
    }

    private static int intBytes(Config kv, String key) {
        long bytes = kv.getBytes(key);
        if (bytes > Integer.MAX_VALUE - 64) {
            throw new ConfigException.BadValue("samples.kv." + key, "must be below 2 GiB");
        }
        return (int) bytes;
    }

    private static void positive(String key, long value) {
        if (value < 1) {
            throw new ConfigException.BadValue("samples.kv." + key, "must be positive, not " + value);
        }
    }
}
