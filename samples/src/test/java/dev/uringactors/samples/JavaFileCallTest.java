package dev.uringactors.samples;

import dev.uringactors.ring.UringException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JavaFileCallTest {
    @TempDir
    Path dir;

    @Test
    void javasFailuresAreSaidWithTheOperationAndTheErrno() throws Exception {
        UringException missing = assertThrows(UringException.class,
                () -> JavaFileCall.run("read the source", () -> Files.readAllBytes(dir.resolve("missing"))));
        assertEquals("read the source: ENOENT (No such file or directory)", missing.getMessage());

        // Java keeps this errno only as its strerror text
        Path file = Files.writeString(dir.resolve("file"), "x");
        Path folder = Files.createDirectory(dir.resolve("folder"));
        UringException ontoFolder = assertThrows(UringException.class, () -> JavaFileCall.run("rename onto folder",
                () -> Files.move(file, folder, StandardCopyOption.ATOMIC_MOVE)));
        assertEquals("rename onto folder: EISDIR (Is a directory)", ontoFolder.getMessage());
    }

    @Test
    void aFailureWithNoErrnoIsNamedAsItIs() {
        IOException e = assertThrows(IOException.class,
                () -> JavaFileCall.run("read the copy", () -> {
                    throw new IOException("Stream closed");
                }));
        assertEquals("read the copy: Stream closed", e.getMessage());
    }
}
