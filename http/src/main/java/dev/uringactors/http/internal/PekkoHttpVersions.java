package dev.uringactors.http.internal;

import org.apache.pekko.http.Version;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;

/**
 * The Pekko HTTP this module was built and tested against, and the one on the class path. {@link ServerStack}
 * reaches into Pekko HTTP's internals, which any minor version may change; with another minor version a server
 * would bind and then fail on its first connection with a NoSuchMethodError. A server refuses to bind instead,
 * naming both versions. Patch versions keep the internals, and are let through.
 *
 * @param builtAgainst the version the build wrote into this module (its {@code pekko-http.version})
 * @param onClassPath  the version of the Pekko HTTP that is loaded, as its own {@link Version} says
 */
public record PekkoHttpVersions(String builtAgainst, String onClassPath) {
    private static final String BUILT_AGAINST = "pekko-http-version.properties";

    /** The versions of this class path. */
    public static PekkoHttpVersions ofClassPath() {
        Properties built = new Properties();
        try (InputStream in = PekkoHttpVersions.class.getResourceAsStream(BUILT_AGAINST)) {
            if (in == null) {
                throw new IllegalStateException("uring-http's " + BUILT_AGAINST + " is missing from the class path");
            }
            built.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new PekkoHttpVersions(built.getProperty("built-against"), Version.current());
    }

    /** Why a server must not start with these versions: their minor versions differ. */
    public Optional<IllegalStateException> refusal() {
        if (minorVersion(builtAgainst).equals(minorVersion(onClassPath))) {
            return Optional.empty();
        }
        return Optional.of(new IllegalStateException("uring-http was built and tested against Pekko HTTP "
                + builtAgainst + ", but Pekko HTTP " + onClassPath + " is on the class path: uring-http reaches "
                + "Pekko HTTP internals that change between minor versions. Depend on Pekko HTTP "
                + minorVersion(builtAgainst) + ".x (pekko-http and pekko-http-core " + builtAgainst
                + "), or use a uring-http built for " + minorVersion(onClassPath) + "."));
    }

    /** "1.3.0" and "1.3.0-RC1" give "1.3". */
    private static String minorVersion(String version) {
        String[] parts = version.split("[.-]", 3);
        return parts.length < 2 ? version : parts[0] + "." + parts[1];
    }
}
