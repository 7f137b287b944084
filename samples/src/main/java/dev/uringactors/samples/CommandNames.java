package dev.uringactors.samples;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Locale;

/**
 * Upper-case command names, found from a client's bytes in any case without making a string: a command is read
 * for every request, and its name was a string and an array of each.
 */
final class CommandNames {
    private final String[] names;
    private final byte[][] bytes;
    private final int mask;

    CommandNames(Collection<String> known) {
        int size = Integer.highestOneBit(Math.max(known.size(), 1) * 4); // at most a quarter full
        names = new String[size];
        bytes = new byte[size][];
        mask = size - 1;
        for (String name : known) {
            byte[] upper = name.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
            int i = hash(upper) & mask;
            while (names[i] != null && !matches(bytes[i], upper)) {
                i = (i + 1) & mask;
            }
            names[i] = new String(upper, StandardCharsets.US_ASCII).intern();
            bytes[i] = upper;
        }
    }

    /** The upper-case name {@code spelled} spells in any case: one of the known ones, or a string of its own. */
    String of(byte[] spelled) {
        for (int i = hash(spelled) & mask; names[i] != null; i = (i + 1) & mask) {
            if (matches(bytes[i], spelled)) {
                return names[i];
            }
        }
        return new String(spelled, StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
    }

    /** The bytes of {@code name}, a name {@link #of} gave: the known ones' without a copy. */
    byte[] bytes(String name) {
        for (int i = hash(name) & mask; names[i] != null; i = (i + 1) & mask) {
            if (names[i].equals(name)) {
                return bytes[i];
            }
        }
        return name.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static boolean matches(byte[] upper, byte[] spelled) {
        if (upper.length != spelled.length) {
            return false;
        }
        for (int i = 0; i < upper.length; i++) {
            if (upper[i] != upperCase(spelled[i])) {
                return false;
            }
        }
        return true;
    }

    /** Case-blind: a name and any spelling of it hash alike. */
    private static int hash(byte[] b) {
        int h = 0;
        for (byte c : b) {
            h = 31 * h + upperCase(c);
        }
        return h ^ (h >>> 16);
    }

    private static int hash(String upper) {
        int h = 0;
        for (int i = 0; i < upper.length(); i++) {
            h = 31 * h + upper.charAt(i);
        }
        return h ^ (h >>> 16);
    }

    private static byte upperCase(byte c) {
        return c >= 'a' && c <= 'z' ? (byte) (c - ('a' - 'A')) : c;
    }
}
