package dev.uringactors.samples;

import dev.uringactors.actors.file.FileStat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;

/**
 * What identifies a version of a served file, and the conditional requests that use it (RFC 9110 13): a strong
 * ETag from the size and the modification time, Last-Modified in IMF-fixdate, If-None-Match (which, when
 * present, decides alone), If-Modified-Since, and If-Range. Also the Content-Type by file extension.
 */
final class FileValidators {
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"), Map.entry("htm", "text/html; charset=utf-8"),
            Map.entry("css", "text/css; charset=utf-8"), Map.entry("js", "text/javascript; charset=utf-8"),
            Map.entry("json", "application/json"), Map.entry("txt", "text/plain; charset=utf-8"),
            Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"),
            Map.entry("svg", "image/svg+xml"), Map.entry("wasm", "application/wasm"),
            Map.entry("pdf", "application/pdf"));

    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
        "Nov", "Dec"};

    private final long size;
    private final Instant exactlyModified;
    private final String etag;
    private final Instant modified;
    private final String lastModified;

    FileValidators(FileStat stat) {
        this.size = stat.size();
        this.exactlyModified = stat.lastModified();
        this.modified = exactlyModified.truncatedTo(ChronoUnit.SECONDS); // what an HTTP date can say
        this.etag = "\"" + Long.toHexString(size) + "-" + Long.toHexString(exactlyModified.getEpochSecond())
                + "." + Integer.toHexString(exactlyModified.getNano()) + "\"";
        this.lastModified = httpDate(modified);
    }

    /** Whether these are the validators of {@code stat}: the same size and modification time. */
    boolean of(FileStat stat) {
        return stat.size() == size && stat.lastModified().equals(exactlyModified);
    }

    String etag() {
        return etag;
    }

    String lastModified() {
        return lastModified;
    }

    /** An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), as HTTP dates are sent; built by hand, for speed. */
    static String httpDate(Instant instant) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(instant.getEpochSecond(), 0, ZoneOffset.UTC);
        StringBuilder date = new StringBuilder(29)
                .append(DAYS[t.getDayOfWeek().ordinal()]).append(", ");
        twoDigits(date, t.getDayOfMonth()).append(' ').append(MONTHS[t.getMonthValue() - 1]).append(' ')
                .append(t.getYear()).append(' ');
        twoDigits(date, t.getHour()).append(':');
        twoDigits(date, t.getMinute()).append(':');
        return twoDigits(date, t.getSecond()).append(" GMT").toString();
    }

    private static StringBuilder twoDigits(StringBuilder out, int value) {
        return out.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
    }

    /** The type of the file {@code path} names, by the extension of its last segment. */
    static String contentType(String path) {
        int dot = path.lastIndexOf('.');
        String type = dot < 0 || path.indexOf('/', dot) >= 0 ? null
                : TYPES.get(path.substring(dot + 1).toLowerCase(Locale.ROOT));
        return type != null ? type : "application/octet-stream";
    }

    /** Whether a GET or HEAD with these headers is answered 304 Not Modified. */
    boolean notModified(String ifNoneMatch, String ifModifiedSince) {
        if (ifNoneMatch != null) {
            return matchesAny(ifNoneMatch);
        }
        Instant since = parseDate(ifModifiedSince);
        return since != null && !modified.isAfter(since);
    }

    /** Whether Range applies under If-Range: no If-Range, or one naming this very version (strong match). */
    boolean rangeApplies(String ifRange) {
        if (ifRange == null) {
            return true;
        }
        if (ifRange.startsWith("\"")) {
            return ifRange.equals(etag);
        }
        Instant date = parseDate(ifRange);
        return date != null && modified.equals(date);
    }

    /** If-None-Match compares weakly: a W/ prefix is ignored. */
    private boolean matchesAny(String header) {
        for (String tag : header.split(",")) {
            String t = tag.trim();
            if (t.equals("*") || (t.startsWith("W/") ? t.substring(2) : t).equals(etag)) {
                return true;
            }
        }
        return false;
    }

    private static Instant parseDate(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Instant.from(HTTP_DATE.parse(value.trim()));
        } catch (DateTimeParseException e) {
            return null; // an invalid date is ignored (RFC 9110 13.1.3)
        }
    }
}
