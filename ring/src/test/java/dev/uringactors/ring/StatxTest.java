package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** statx(2) called directly, of a path: stx_size @40, stx_mode @28. */
class StatxTest {
    @Test
    void aPathIsStattedThroughItsLinksAndAMissingOneIsENOENT(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("five"), new byte[] {1, 2, 3, 4, 5});
        Path link = Files.createSymbolicLink(dir.resolve("link"), file);
        ByteBuffer byPath = Statx.ofPath(link.toString());
        assertEquals(5, byPath.getLong(40), "the link is followed to the file");
        assertTrue((byPath.getShort(28) & 0170000) == 0100000, "a regular file");
        assertTrue((Statx.ofPath(dir.toString()).getShort(28) & 0170000) == 0040000, "a directory");
        UringException missing = assertThrows(UringException.class, () -> Statx.ofPath(dir + "/none"));
        assertEquals(Errno.ENOENT, missing.errno());
        assertTrue(missing.getMessage().contains(dir + "/none"), missing.getMessage());
    }
}
