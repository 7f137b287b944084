package dev.uringactors.http.internal;

import org.apache.pekko.http.Version;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PekkoHttpVersionsTest {
    @Test
    void anotherMinorVersionIsRefusedNamingBoth() {
        for (String other : new String[] {"1.4.0", "1.2.1", "2.0.0-M1"}) {
            IllegalStateException refusal = new PekkoHttpVersions("1.3.0", other).refusal().orElseThrow();
            assertTrue(refusal.getMessage().contains("built and tested against Pekko HTTP 1.3.0, but Pekko HTTP "
                    + other + " is on the class path"), refusal.getMessage());
        }
    }

    @Test
    void anotherPatchVersionIsLetThrough() {
        assertTrue(new PekkoHttpVersions("1.3.0", "1.3.2").refusal().isEmpty());
        assertTrue(new PekkoHttpVersions("1.3.0", "1.3.1-RC1").refusal().isEmpty());
    }

    @Test
    void theBuildRecordsTheVersionItIsTestedWith() {
        PekkoHttpVersions here = PekkoHttpVersions.ofClassPath();
        assertEquals(Version.current(), here.builtAgainst(), "the build's record, filled in");
        assertTrue(here.refusal().isEmpty());
    }
}
