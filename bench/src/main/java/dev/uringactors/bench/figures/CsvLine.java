package dev.uringactors.bench.figures;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** One line of CSV (RFC 4180 without line breaks in fields): series names such as "uring-actors (lent, 1 ring)" hold commas. */
final class CsvLine {
    private CsvLine() {
    }

    static String join(List<String> fields) {
        return fields.stream().map(CsvLine::quoted).collect(Collectors.joining(","));
    }

    static List<String> split(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                field.append('"');
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }

    private static String quoted(String field) {
        return field.contains(",") || field.contains("\"") ? '"' + field.replace("\"", "\"\"") + '"' : field;
    }
}
