package dev.uringactors.samples;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Locale;

/**
 * Names a protocol knows (Redis commands, HTTP methods and header names), found from a client's bytes without
 * making a string: one is read for every request, and each was a string and an array of its own. Where the
 * protocol ignores case, a client's spelling is folded before it is matched, and the name is given folded.
 */
final class KnownNames {
    /** How a client's spelling is folded before it is matched: Redis commands upper, HTTP field names lower. */
    enum Fold { UPPER, LOWER, NONE }

    private final Fold fold;
    private final String[] names;
    private final byte[][] bytes;
    private final int mask;

    KnownNames(Fold fold, Collection<String> known) {
        this.fold = fold;
        int size = Integer.highestOneBit(Math.max(known.size(), 1) * 4); // at most a quarter full
        names = new String[size];
        bytes = new byte[size][];
        mask = size - 1;
        for (String name : known) {
            byte[] folded = folded(name).getBytes(StandardCharsets.US_ASCII);
            int i = hash(folded, 0, folded.length) & mask;
            while (names[i] != null && !matches(bytes[i], folded, 0, folded.length)) {
                i = (i + 1) & mask;
            }
            names[i] = new String(folded, StandardCharsets.US_ASCII).intern();
            bytes[i] = folded;
        }
    }

    /** The known name {@code spelled} spells (folded), or a string of its own. */
    String of(byte[] spelled) {
        return of(spelled, 0, spelled.length);
    }

    /** The known name {@code b[from, to)} spells (folded), or a string of its own (ISO-8859-1, folded). */
    String of(byte[] b, int from, int to) {
        for (int i = hash(b, from, to) & mask; names[i] != null; i = (i + 1) & mask) {
            if (matches(bytes[i], b, from, to)) {
                return names[i];
            }
        }
        return folded(new String(b, from, to - from, StandardCharsets.ISO_8859_1));
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

    private String folded(String name) {
        return switch (fold) {
            case UPPER -> name.toUpperCase(Locale.ROOT);
            case LOWER -> name.toLowerCase(Locale.ROOT);
            case NONE -> name;
        };
    }

    /** Whether {@code b[from, to)} spells {@code known} (folded). */
    private boolean matches(byte[] known, byte[] b, int from, int to) {
        if (known.length != to - from) {
            return false;
        }
        for (int i = 0; i < known.length; i++) {
            if (known[i] != folded(b[from + i])) {
                return false;
            }
        }
        return true;
    }

    /** Blind to the folded case: a name and any spelling of it hash alike. */
    private int hash(byte[] b, int from, int to) {
        int h = 0;
        for (int i = from; i < to; i++) {
            h = 31 * h + folded(b[i]);
        }
        return h ^ (h >>> 16);
    }

    private static int hash(String name) {
        int h = 0;
        for (int i = 0; i < name.length(); i++) {
            h = 31 * h + name.charAt(i);
        }
        return h ^ (h >>> 16);
    }

    private byte folded(byte c) {
        return switch (fold) {
            case UPPER -> c >= 'a' && c <= 'z' ? (byte) (c - ('a' - 'A')) : c;
            case LOWER -> c >= 'A' && c <= 'Z' ? (byte) (c + ('a' - 'A')) : c;
            case NONE -> c;
        };
    }
}
