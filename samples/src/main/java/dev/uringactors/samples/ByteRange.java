package dev.uringactors.samples;

/**
 * A {@code Range: bytes=...} header against a file of a known size (RFC 9110 14.1.2): a satisfiable single range
 * is a {@link Slice}; an unsatisfiable one, {@link #UNSATISFIABLE} (416); anything else, several ranges, another
 * unit, bad syntax, is {@link #WHOLE}: the server may answer those with the whole file, and does.
 */
sealed interface ByteRange {
    /** Serve the whole file (200). */
    ByteRange WHOLE = new Whole();
    /** No byte of the file is in the range (416). */
    ByteRange UNSATISFIABLE = new Unsatisfiable();

    /** Bytes {@code first} to {@code last}, both included (206). */
    record Slice(long first, long last) implements ByteRange {
        long length() {
            return last - first + 1;
        }
    }

    record Whole() implements ByteRange {
    }

    record Unsatisfiable() implements ByteRange {
    }

    static ByteRange parse(String header, long size) {
        if (header == null || !header.regionMatches(true, 0, "bytes=", 0, 6)) {
            return WHOLE;
        }
        String spec = header.substring(6).trim();
        int dash = spec.indexOf('-');
        if (spec.indexOf(',') >= 0 || dash < 0) {
            return WHOLE;
        }
        long first = number(spec.substring(0, dash).trim());
        long last = number(spec.substring(dash + 1).trim());
        if (dash == 0) { // a suffix: the last n bytes
            if (last < 0) {
                return WHOLE;
            }
            return last == 0 || size == 0 ? UNSATISFIABLE : new Slice(Math.max(0, size - last), size - 1);
        }
        if (first < 0 || (last < 0 && dash + 1 < spec.length()) || (last >= 0 && last < first)) {
            return WHOLE;
        }
        if (first >= size) {
            return UNSATISFIABLE;
        }
        return new Slice(first, last < 0 ? size - 1 : Math.min(last, size - 1));
    }

    /** A non-negative decimal, or -1 when empty, not digits, or too large. */
    private static long number(String digits) {
        if (digits.isEmpty() || digits.length() > 18) {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(digits);
    }
}
