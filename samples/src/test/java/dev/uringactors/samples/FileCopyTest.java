package dev.uringactors.samples;

import dev.uringactors.ring.Errno;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@ExtendWith(RequiresIoUring.class)
class FileCopyTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {0, 1, FileCopy.BLOCK, FileCopy.BLOCK * FileCopy.QUEUE_DEPTH * 3 + 12_345})
    void copyIsByteForByteTheSource(int size) throws Exception {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        Path source = Files.write(dir.resolve("source"), data);
        Path target = dir.resolve("target");
        assertEquals(size, FileCopy.copy(source, target));
        assertArrayEquals(data, Files.readAllBytes(target));
    }

    @Test
    void missingSourceIsATypedError() {
        UringException e = assertThrows(UringException.class,
                () -> FileCopy.copy(dir.resolve("missing"), dir.resolve("target")));
        assertEquals(Errno.ENOENT, e.errno());
    }
}
