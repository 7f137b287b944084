package dev.uringactors.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Settings under {@code uring} that this library does not know: a misspelt key would otherwise be ignored in
 * silence and its default used. Each is named with the nearest known key. A key of a profile block
 * ({@code uring.profiles.<name>.<key>}) is checked against the top-level keys it overrides. A Pekko dispatcher's
 * block ({@code uring.jdk.file-dispatcher}, {@code uring.jdk.http-dispatcher}) takes whatever Pekko takes there:
 * Pekko checks it.
 */
final class UnknownKeys {
    /** The blocks under {@code uring} whose keys are Pekko's, not this library's. */
    private static final List<String> PEKKO_BLOCKS = List.of("jdk.file-dispatcher.", "jdk.http-dispatcher.");

    private UnknownKeys() {
    }

    /** The unknown keys' messages, e.g. "uring.wiat-strategy: unknown setting; did you mean uring.wait-strategy?" */
    static List<String> of(Config uring) {
        Set<String> known = new TreeSet<>();
        // The reference without system properties: defaultReference() merges -D overrides in, which would make a
        // misspelt -During.* key known to itself.
        for (Map.Entry<String, ConfigValue> e : ConfigFactory.defaultReferenceUnresolved().getConfig("uring")
                .entrySet()) {
            if (!e.getKey().startsWith("profiles.")) {
                known.add(e.getKey());
            }
        }
        List<String> unknown = new ArrayList<>();
        for (String key : keys(uring)) {
            String setting = key.startsWith("profiles.") ? afterProfileName(key) : key;
            if (setting != null && !known.contains(setting) && !known.contains(listOf(setting))
                    && PEKKO_BLOCKS.stream().noneMatch(setting::startsWith)) {
                unknown.add("uring." + key + ": unknown setting; did you mean uring." + nearest(setting, known)
                        + "?");
            }
        }
        return unknown;
    }

    /**
     * The list a key is an element of, when it is one given by index ({@code -During.sqpoll.cpus.0=1} makes the
     * key {@code sqpoll.cpus.0}), else the key itself.
     */
    private static String listOf(String key) {
        return key.replaceFirst("\\.\\d+$", "");
    }

    /** Fails with every unknown key, or with none. */
    static void check(Config uring, boolean warnOnly) {
        List<String> unknown = of(uring);
        if (unknown.isEmpty()) {
            return;
        }
        String message = String.join("\n", unknown) + "\n(set uring.unknown-keys = warn to go on regardless)";
        if (!warnOnly) {
            throw new ConfigException.BadPath("uring", message);
        }
        System.getLogger(UnknownKeys.class.getName()).log(System.Logger.Level.WARNING, String.join("; ", unknown));
    }

    private static Set<String> keys(Config uring) {
        Set<String> keys = new TreeSet<>();
        for (Map.Entry<String, ConfigValue> e : uring.entrySet()) {
            keys.add(e.getKey());
        }
        return keys;
    }

    /** "profiles.fast.wait-strategy" -> "wait-strategy"; null for a profile with no key under it. */
    private static String afterProfileName(String key) {
        int dot = key.indexOf('.', "profiles.".length());
        return dot < 0 ? null : key.substring(dot + 1);
    }

    private static String nearest(String key, Set<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int d = distance(key, candidate);
            if (d < bestDistance) {
                bestDistance = d;
                best = candidate;
            }
        }
        return best;
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
