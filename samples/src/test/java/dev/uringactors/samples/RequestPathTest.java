package dev.uringactors.samples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Request targets to the paths they name, through the plain path's shortcut and the decoding one alike. */
class RequestPathTest {
    @ParameterizedTest
    @CsvSource({"/, ., true", "/a, a, false", "/a/, a, true", "/a/b.txt, a/b.txt, false", "/a//b, a/b, false",
        "/./a, a, false", "/a/./, a, true", "//, ., true", "/.a/..b/.../c, .a/..b/.../c, false",
        "/%61, a, false", "/a%2Fb, a/b, false", "/a?x=../.., a, false", "http://host/a/b, a/b, false"})
    void aTargetNamesItsPath(String target, String relative, boolean directorySyntax) throws Exception {
        assertEquals(new RequestPath(relative, directorySyntax), RequestPath.of(target));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/..", "/a/..", "/a/../b", "/%2e%2e", "/a\\b", "/a%5Cb", "/a%00", "/%c0%ae%c0%ae"})
    void whatWouldLeaveTheRootIsForbidden(String target) {
        assertEquals(RequestPath.Refusal.FORBIDDEN,
                assertThrows(RequestPath.RefusedException.class, () -> RequestPath.of(target)).refusal);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "", "/a b", "/%zz", "/%6"})
    void whatIsNoPathIsMalformed(String target) {
        assertEquals(RequestPath.Refusal.MALFORMED,
                assertThrows(RequestPath.RefusedException.class, () -> RequestPath.of(target)).refusal);
    }

    /** A letter percent-encoded takes the decoding way: both ways must name the same path for any target. */
    @Test
    void theShortcutNamesWhatDecodingNames() throws Exception {
        Random random = new Random(7);
        String alphabet = "/./a.b/";
        for (int n = 0; n < 100_000; n++) {
            StringBuilder target = new StringBuilder("/");
            for (int i = random.nextInt(12); i > 0; i--) {
                target.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            int letter = Math.max(target.indexOf("a"), target.indexOf("b"));
            if (letter < 0) {
                continue;
            }
            String plain = target.toString();
            String encoded = plain.substring(0, letter) + "%6" + (plain.charAt(letter) == 'a' ? '1' : '2')
                    + plain.substring(letter + 1);
            assertEquals(outcome(encoded), outcome(plain), plain + " against " + encoded);
        }
    }

    private static String outcome(String target) {
        try {
            return RequestPath.of(target).toString();
        } catch (RequestPath.RefusedException e) {
            return e.refusal.toString();
        }
    }
}
