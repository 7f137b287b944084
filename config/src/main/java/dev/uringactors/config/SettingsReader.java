package dev.uringactors.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Reads one key of the {@code uring} block and checks it. Every failure is a {@link ConfigException.BadValue}
 * naming the full HOCON path, the value found and what is allowed.
 */
final class SettingsReader {
    private static final String ROOT = "uring.";
    /** The units of {@link #asWritten}, largest first: HOCON's, but for days (the messages speak in hours). */
    private static final long[] UNIT_NANOS = {
        3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L};
    private static final String[] UNIT_NAMES = {"h", "m", "s", "ms", "us", "ns"};
    private final Config uring;

    SettingsReader(Config uring) {
        this.uring = uring;
    }

    static ConfigException.BadValue bad(String key, String allowed, Object value) {
        return new ConfigException.BadValue(ROOT + key, "must be " + allowed + ", got " + value);
    }

    private String raw(String key) {
        return uring.getValue(key).render();
    }

    /** A value as written on one line, without the origin comments a list renders with. */
    private String concise(String key) {
        return uring.getValue(key).render(com.typesafe.config.ConfigRenderOptions.concise());
    }

    int intIn(String key, int min, int max) {
        int v;
        try {
            v = uring.getInt(key);
        } catch (ConfigException.WrongType e) {
            throw bad(key, "a whole number from " + min + " to " + max, raw(key));
        }
        if (v < min || v > max) {
            throw bad(key, "a whole number from " + min + " to " + max, v);
        }
        return v;
    }

    /** A power of two in [min, max]; "auto" gives {@code auto}. */
    int powerOfTwoOrAuto(String key, int min, int max, int auto) {
        if (isAuto(key)) {
            return auto;
        }
        String allowed = "a power of two from " + min + " to " + max + (auto < 0 ? "" : " or auto");
        int v;
        try {
            v = uring.getInt(key);
        } catch (ConfigException.WrongType e) {
            throw bad(key, allowed, raw(key));
        }
        if (v < min || v > max || Integer.bitCount(v) != 1) {
            throw bad(key, allowed, v);
        }
        return v;
    }

    int intOrAuto(String key, int min, int max, int auto) {
        return isAuto(key) ? auto : intIn(key, min, max);
    }

    private boolean isAuto(String key) {
        return isWord(key, "auto");
    }

    /** HOCON reads a bare "off" as the boolean false. */
    private boolean isOff(String key) {
        Object v = uring.getValue(key).unwrapped();
        return v.equals("off") || v.equals(Boolean.FALSE);
    }

    private boolean isWord(String key, String word) {
        return uring.getValue(key).unwrapped().equals(word);
    }

    boolean bool(String key) {
        try {
            return uring.getBoolean(key);
        } catch (ConfigException.WrongType e) {
            throw bad(key, "on or off", raw(key));
        }
    }

    <E extends Enum<E>> E oneOf(String key, Class<E> type) {
        String v = uring.getString(key);
        try {
            return Enum.valueOf(type, v.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            String allowed = String.join(" | ", Arrays.stream(type.getEnumConstants())
                    .map(c -> c.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList());
            throw bad(key, "one of " + allowed, "'" + v + "'");
        }
    }

    Duration duration(String key, Duration min, Duration max) {
        return duration(key, min, max, "");
    }

    /** "infinite" gives null. */
    Duration durationOrInfinite(String key, Duration min, Duration max) {
        return isWord(key, "infinite") ? null : duration(key, min, max, "infinite or ");
    }

    /** {@code alternative} is how the word the key also takes is offered in the message ("" for none). */
    private Duration duration(String key, Duration min, Duration max, String alternative) {
        Duration d;
        try {
            d = uring.getDuration(key);
        } catch (ConfigException.BadValue | ConfigException.WrongType e) {
            throw bad(key, alternative + "a duration such as 10ms or 5s", raw(key));
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw bad(key, alternative + "a duration from " + asWritten(min) + " to " + asWritten(max),
                    asWritten(d));
        }
        return d;
    }

    /**
     * A duration as one writes it in HOCON, in the largest unit that holds it whole: 1ms, 8760h, 1500ms (not
     * Java's PT0.001S). HOCON reads durations as long nanoseconds, so every one fits.
     */
    private static String asWritten(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        long nanos = d.toNanos();
        for (int i = 0; i < UNIT_NANOS.length; i++) {
            if (nanos % UNIT_NANOS[i] == 0) {
                return nanos / UNIT_NANOS[i] + UNIT_NAMES[i];
            }
        }
        throw new AssertionError("every duration is a whole number of nanoseconds");
    }

    int bytes(String key, int min, int max) {
        return bytes(key, min, max, "");
    }

    /** "off" gives -1. */
    int bytesOrOff(String key, int min, int max) {
        return isOff(key) ? -1 : bytes(key, min, max, "off or ");
    }

    private int bytes(String key, int min, int max, String alternative) {
        long v;
        try {
            v = uring.getBytes(key);
        } catch (ConfigException.BadValue | ConfigException.WrongType e) {
            throw bad(key, alternative + "a size such as 64 KiB", raw(key));
        }
        if (v < min || v > max) {
            throw bad(key, alternative + "a size from " + min + " to " + max + " bytes", v + " bytes");
        }
        return (int) v;
    }

    /** {@code word} gives {@code wordValue}; otherwise a whole number in [min, max]. */
    int intOrWord(String key, String word, int wordValue, int min, int max) {
        if (isWord(key, word)) {
            return wordValue;
        }
        try {
            return intIn(key, min, max);
        } catch (ConfigException.BadValue e) {
            throw bad(key, word + " or a whole number from " + min + " to " + max, raw(key));
        }
    }

    /** A list of whole numbers in [min, max], empty or of exactly {@code size} (what {@code size} counts). */
    List<Integer> intList(String key, int min, int max, int size, String counted) {
        String allowed = "[] or a list of " + size + " whole numbers from " + min + " to " + max + " (one per "
                + counted + ")";
        List<Integer> list;
        try {
            list = uring.getIntList(key);
        } catch (ConfigException.WrongType | ConfigException.BadValue e) {
            throw bad(key, allowed, concise(key));
        }
        if (!list.isEmpty() && list.size() != size || list.stream().anyMatch(v -> v < min || v > max)) {
            throw bad(key, allowed, concise(key));
        }
        return List.copyOf(list);
    }
}
