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
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
        assertEquals(size, FileCopy.copy(source, target).bytes());
        assertArrayEquals(data, Files.readAllBytes(target));
    }

    @Test
    void missingSourceIsATypedErrorAndLeavesNoTarget() {
        assertThrows(java.nio.file.NoSuchFileException.class,
                () -> FileCopy.copy(dir.resolve("missing"), dir.resolve("target")));
        assertEquals(1, copyCommand(dir.resolve("missing").toString(), dir.resolve("target").toString()).status());
        assertFalse(Files.exists(dir.resolve("target")));
    }

    @Test
    void anEmptyPathIsAWrongArgument() throws Exception {
        Path source = Files.write(dir.resolve("source"), new byte[] {1, 2, 3});
        SampleCommand.Outcome noTarget = copyCommand(source.toString(), "");
        assertEquals(2, noTarget.status(), noTarget.errors());
        assertTrue(noTarget.errors().startsWith("error: copy takes SOURCE and TARGET, not an empty path\nusage:"),
                noTarget.errors());
        assertEquals(2, copyCommand("", dir.resolve("target").toString()).status());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of("source"), left.map(p -> p.getFileName().toString()).toList());
        }
    }

    private static SampleCommand.Outcome copyCommand(String source, String target) {
        return SampleCommand.run("copy", source, target);
    }

    @Test
    void aFileCopiedOntoItselfIsLeftIntactAndTheCommandFails() throws Exception {
        byte[] data = new byte[100_000];
        new Random(5).nextBytes(data);
        Path source = Files.write(dir.resolve("f"), data);
        Path link = Files.createSymbolicLink(dir.resolve("link"), source);
        Path hardLink = Files.createLink(dir.resolve("hard"), source);
        for (Path target : new Path[] {source, link, hardLink}) {
            CopyRefusedException e = assertThrows(CopyRefusedException.class, () -> FileCopy.copy(source, target));
            assertTrue(e.getMessage().contains("the same file"), e.getMessage());
            assertEquals(1, copyCommand(source.toString(), target.toString()).status());
            assertArrayEquals(data, Files.readAllBytes(source), "through " + target);
        }
    }

    @Test
    void whatIsNoRegularFileIsRefusedAndLeavesNoTarget() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (Path source : new Path[] {dir, fifo, Path.of("/dev/zero")}) {
            Path target = dir.resolve("target");
            CopyRefusedException e = assertThrows(CopyRefusedException.class, () -> FileCopy.copy(source, target));
            assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
            assertFalse(Files.exists(target), "no target for " + source);
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of("fifo"), left.map(p -> p.getFileName().toString()).toList(), "no temporary file");
        }
    }

    @Test
    void aFailedCopyLeavesTheOldTargetAndNamesTheWrite() throws Exception {
        Path small = dir.resolve("small");
        Files.createDirectory(small);
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small.toString())
                .redirectErrorStream(true).start();
        String why = new String(mount.getInputStream().readAllBytes());
        assumeTrue(mount.waitFor() == 0, "a small tmpfs to fill could not be mounted here: " + why);
        try {
            Path source = Files.write(dir.resolve("big"), new byte[4 << 20]);
            Path target = Files.writeString(small.resolve("target"), "the old target");
            UringException e = assertThrows(UringException.class, () -> FileCopy.copy(source, target));
            assertEquals(Errno.ENOSPC, e.errno());
            assertTrue(e.getMessage().startsWith("WRITE"), e.getMessage());
            assertEquals("the old target", Files.readString(target));
            try (Stream<Path> left = Files.list(small)) {
                assertEquals(1, left.count(), "no temporary file left beside the target");
            }
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }

    @Test
    void theCopyKeepsTheSourcesPermissions() throws Exception {
        Path source = Files.write(dir.resolve("script"), new byte[] {1, 2, 3});
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rwxr-x---"));
        Path target = dir.resolve("copy");
        FileCopy.copy(source, target);
        assertEquals(Files.getPosixFilePermissions(source), Files.getPosixFilePermissions(target));
    }
}
