package dev.uringactors.samples;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The file a request target names, as a path relative to the served root: the query is dropped, the path is
 * percent-decoded once and must then be well-formed UTF-8 (an overlong form is malformed), and its segments are
 * joined again without empty and {@code .} ones. A {@code ..} segment, a backslash or a NUL, however encoded, is
 * refused rather than interpreted. This is the first of two checks: the file is then opened beneath the root
 * by the kernel (RESOLVE_BENEATH), which also refuses symlinks that lead outside.
 */
record RequestPath(String relative, boolean directorySyntax) {
    /** The root itself. */
    static final String ROOT = ".";

    /** Why a target names no file. */
    enum Refusal { MALFORMED, FORBIDDEN }

    /** Thrown for a target that names no file that may be served. */
    static final class RefusedException extends Exception {
        final Refusal refusal;

        RefusedException(Refusal refusal, String message) {
            super(message, null, false, false);
            this.refusal = refusal;
        }
    }

    /**
     * {@code target} in origin form ("/a/b?q") or absolute form ("http://host/a/b?q", which RFC 9112 3.2.2 asks
     * a server to take); {@code directorySyntax} when its path ends in "/".
     */
    static RequestPath of(String target) throws RefusedException {
        String path = pathOf(target);
        if (!path.startsWith("/")) {
            throw new RefusedException(Refusal.MALFORMED, "not an absolute path");
        }
        if (plainAscii(path) && path.indexOf('\\') < 0 && cleanSegments(path)) { // the common case, as it is
            int end = path.endsWith("/") ? path.length() - 1 : path.length();
            return new RequestPath(end <= 1 ? ROOT : path.substring(1, end), end < path.length());
        }
        String decoded = decode(path);
        if (decoded.indexOf('\0') >= 0 || decoded.indexOf('\\') >= 0) {
            throw new RefusedException(Refusal.FORBIDDEN, "NUL or backslash in the path");
        }
        List<String> segments = new ArrayList<>();
        for (String segment : decoded.split("/")) {
            if (segment.equals("..")) {
                throw new RefusedException(Refusal.FORBIDDEN, "a .. segment");
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(segment);
            }
        }
        return new RequestPath(segments.isEmpty() ? ROOT : String.join("/", segments), path.endsWith("/"));
    }

    /** The path of the target: without its query, and without scheme and authority in absolute form. */
    static String pathOf(String target) {
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        if (path.startsWith("http://") || path.startsWith("https://")) {
            int slash = path.indexOf('/', path.indexOf("//") + 2);
            return slash < 0 ? "/" : path.substring(slash);
        }
        return path;
    }

    /**
     * Whether every segment of {@code path} (which starts with "/") is one that the join below keeps as it is:
     * none empty but a last one (the trailing "/"), none "." or "..".
     */
    private static boolean cleanSegments(String path) {
        for (int start = 1; start < path.length(); ) {
            int slash = path.indexOf('/', start);
            int end = slash < 0 ? path.length() : slash;
            int length = end - start;
            if (length == 0 || (length <= 2 && path.charAt(start) == '.'
                    && (length == 1 || path.charAt(start + 1) == '.'))) {
                return false;
            }
            start = end + 1;
        }
        return true;
    }

    private static boolean plainAscii(String path) {
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%' || c > 0x7e || c < 0x21) {
                return false;
            }
        }
        return true;
    }

    private static String decode(String path) throws RefusedException {
        if (plainAscii(path)) {
            return path; // nothing encoded: as it is (ASCII is UTF-8)
        }
        ByteBuffer bytes = ByteBuffer.allocate(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%') {
                int hi = i + 2 < path.length() ? Character.digit(path.charAt(i + 1), 16) : -1;
                int lo = hi >= 0 ? Character.digit(path.charAt(i + 2), 16) : -1;
                if (lo < 0) {
                    throw new RefusedException(Refusal.MALFORMED, "a bad percent-encoding");
                }
                bytes.put((byte) (hi << 4 | lo));
                i += 2;
            } else if (c > 0x7e || c < 0x21) {
                throw new RefusedException(Refusal.MALFORMED, "a character that must be percent-encoded");
            } else {
                bytes.put((byte) c);
            }
        }
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes.flip());
            return chars.toString();
        } catch (CharacterCodingException e) { // an overlong form of "." or "/" is the classic way to hide one
            throw new RefusedException(Refusal.FORBIDDEN, "not UTF-8 (" + e.getMessage() + ")");
        }
    }
}
