package dev.uringactors.ring;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The names and the C library's texts of the errnos, checked against the C library of this machine. */
class ErrnoTest {
    /** Every errno constant, by reflection: one added later is checked too. */
    private static List<Integer> constants() throws IllegalAccessException {
        List<Integer> errnos = new ArrayList<>();
        for (Field f : Errno.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                assertEquals(f.getName(), Errno.name(f.getInt(null)), "the constant's name is Linux's");
                errnos.add(f.getInt(null));
            }
        }
        assertFalse(errnos.isEmpty());
        return errnos;
    }

    @Test
    void eachConstantIsFoundAgainByItsCLibraryText() throws Exception {
        String probe;
        try {
            probe = LibC.strerror(Errno.ENOENT);
        } catch (LinkageError e) {
            probe = null;
        }
        assumeTrue(probe != null, "the C library cannot be called here: no strerror text to compare with");
        for (int errno : constants()) {
            String text = LibC.strerror(errno);
            assertEquals(errno, Errno.ofDescription(text), Errno.name(errno) + ": " + text);
            assertEquals(errno, Errno.ofDescription(text + " (with the JDK's words after it)"), Errno.name(errno));
        }
    }

    @Test
    void aTextThatBeginsAnotherFindsTheLongestOneItBeginsWith() {
        assertEquals(Errno.EMFILE, Errno.ofDescription("Too many open files"));
        assertEquals(Errno.ENFILE, Errno.ofDescription("Too many open files in system"));
        assertEquals(Errno.ENODEV, Errno.ofDescription("No such device"));
        assertEquals(Errno.ENXIO, Errno.ofDescription("No such device or address"));
    }

    @Test
    void anUnknownTextOrNoneIsZero() throws Exception {
        assertEquals(0, Errno.ofDescription(null));
        assertEquals(0, Errno.ofDescription(""));
        assertEquals(0, Errno.ofDescription("something else went wrong"));
        assertEquals(0, Errno.ofDescription("a text with Permission denied inside"), "only where it begins");
        assertFalse(constants().contains(0));
    }
}
