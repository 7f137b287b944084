package dev.uringactors.samples;

/**
 * Glob patterns as redis-server 7.0 matches them (util.c's stringmatchlen): {@code *}, {@code ?}, {@code [abc]},
 * {@code [^abc]}, {@code [a-z]} (either way round), and {@code \} taking the next byte as it is; a {@code [}
 * left open takes the pattern's end as its {@code ]}. Bytes compare as C's signed chars, so a range such as
 * {@code [a-\xff]} is the range of {@code \xff} (-1) to {@code a}.
 */
final class KvGlob {
    private KvGlob() {
    }

    /** Whether {@code string} matches {@code pattern}; {@code nocase} compares ASCII letters without case. */
    static boolean matches(byte[] pattern, byte[] string, boolean nocase) {
        return match(pattern, 0, string, 0, nocase, new boolean[1]);
    }

    /**
     * The pattern from {@code p}, the string from {@code s}. {@code skipLonger} is redis-server's
     * skipLongerMatches: once the rest after a {@code *} matched nowhere, no earlier {@code *} can help either.
     */
    private static boolean match(byte[] pattern, int p, byte[] string, int s, boolean nocase, boolean[] skipLonger) {
        int pEnd = pattern.length;
        int sEnd = string.length;
        while (p < pEnd && s < sEnd) {
            switch (pattern[p]) {
                case '*' -> {
                    while (p + 1 < pEnd && pattern[p + 1] == '*') {
                        p++;
                    }
                    if (p + 1 == pEnd) {
                        return true;
                    }
                    while (s < sEnd) {
                        if (match(pattern, p + 1, string, s, nocase, skipLonger)) {
                            return true;
                        }
                        if (skipLonger[0]) {
                            return false;
                        }
                        s++;
                    }
                    skipLonger[0] = true;
                    return false;
                }
                case '?' -> s++;
                case '[' -> {
                    p++;
                    boolean not = p < pEnd && pattern[p] == '^';
                    if (not) {
                        p++;
                    }
                    boolean match = false;
                    while (true) {
                        if (p < pEnd && pattern[p] == '\\' && pEnd - p >= 2) {
                            p++;
                            if (pattern[p] == string[s]) {
                                match = true;
                            }
                        } else if (p < pEnd && pattern[p] == ']') {
                            break;
                        } else if (p == pEnd) {
                            p--; // the loop's end steps past the last byte again
                            break;
                        } else if (pEnd - p >= 3 && pattern[p + 1] == '-') {
                            int start = pattern[p];
                            int end = pattern[p + 2];
                            int c = string[s];
                            if (start > end) {
                                int t = start;
                                start = end;
                                end = t;
                            }
                            if (nocase) {
                                start = lower(start);
                                end = lower(end);
                                c = lower(c);
                            }
                            p += 2;
                            if (c >= start && c <= end) {
                                match = true;
                            }
                        } else if (same(pattern[p], string[s], nocase)) {
                            match = true;
                        }
                        p++;
                    }
                    if (not) {
                        match = !match;
                    }
                    if (!match) {
                        return false;
                    }
                    s++;
                }
                case '\\' -> {
                    if (pEnd - p >= 2) {
                        p++;
                    }
                    if (!same(pattern[p], string[s], nocase)) {
                        return false;
                    }
                    s++;
                }
                default -> {
                    if (!same(pattern[p], string[s], nocase)) {
                        return false;
                    }
                    s++;
                }
            }
            p++;
            if (s == sEnd) {
                while (p < pEnd && pattern[p] == '*') {
                    p++;
                }
                break;
            }
        }
        return p == pEnd && s == sEnd;
    }

    private static boolean same(byte a, byte b, boolean nocase) {
        return nocase ? lower(a) == lower(b) : a == b;
    }

    /** C's tolower in the C locale: only A-Z change. */
    private static int lower(int c) {
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    }
}
