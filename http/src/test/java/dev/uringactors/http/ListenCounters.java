package dev.uringactors.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel's counters of what a listen queue turned away ({@code nstat -az TcpExtListenOverflows
 * TcpExtListenDrops TcpExtSyncookiesSent}), for the network namespace: other processes in it count too, so a test
 * reports them and asserts on what its own clients saw.
 */
record ListenCounters(Map<String, Long> values) {
    private static final List<String> NAMES = List.of("ListenOverflows", "ListenDrops", "SyncookiesSent");

    static ListenCounters read() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/net/netstat"));
        Map<String, Long> values = new LinkedHashMap<>();
        for (int i = 0; i + 1 < lines.size(); i += 2) {
            String[] names = lines.get(i).split(" ");
            String[] numbers = lines.get(i + 1).split(" ");
            if (names[0].equals("TcpExt:")) {
                for (int k = 1; k < names.length; k++) {
                    if (NAMES.contains(names[k])) {
                        values.put(names[k], Long.parseLong(numbers[k]));
                    }
                }
            }
        }
        return new ListenCounters(values);
    }

    /** What was counted since {@code before}, as {@code ListenOverflows=0 ListenDrops=0 SyncookiesSent=0}. */
    String since(ListenCounters before) {
        StringBuilder s = new StringBuilder();
        values.forEach((name, value) -> s.append(s.length() == 0 ? "" : " ").append(name).append('=')
                .append(value - before.values.getOrDefault(name, 0L)));
        return s.toString();
    }
}
