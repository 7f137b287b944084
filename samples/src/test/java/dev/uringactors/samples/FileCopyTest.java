package dev.uringactors.samples;

import dev.uringactors.ring.Errno;
import dev.uringactors.ring.Fifo;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.UringException;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
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
    @ValueSource(ints = {0, 1, BlockCopy.BLOCK, BlockCopy.BLOCK * BlockCopy.QUEUE_DEPTH * 3 + 12_345})
    void copyIsByteForByteTheSource(int size) throws Exception {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        Path source = Files.write(dir.resolve("source"), data);
        Path target = dir.resolve("target");
        assertEquals(size, FileCopy.copy(source, target).bytes());
        assertArrayEquals(data, Files.readAllBytes(target));
    }

    @Test
    void aMissingSourceIsSaidWithTheOperationThePathAndTheErrno() throws Exception {
        Path missing = dir.resolve("missing");
        UringException e = assertThrows(UringException.class, () -> FileCopy.copy(missing, dir.resolve("target")));
        assertEquals(Errno.ENOENT, e.errno());
        SampleCommand.Outcome copy = copyCommand(missing.toString(), dir.resolve("target").toString());
        assertEquals(1, copy.status());
        assertEquals("error: STATX " + missing + ": ENOENT (No such file or directory)\n", copy.errors());
        assertFalse(Files.exists(dir.resolve("target")));
    }

    @Test
    void aMissingTargetFolderIsSaidWithTheTargetNotTheTemporaryFile() throws Exception {
        Path source = Files.write(dir.resolve("source"), new byte[] {1, 2, 3});
        Path target = dir.resolve("no-such-folder").resolve("target");
        SampleCommand.Outcome copy = copyCommand(source.toString(), target.toString());
        assertEquals(1, copy.status());
        assertEquals("error: OPENAT the copy beside " + target + ": ENOENT (No such file or directory)\n",
                copy.errors());
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
        Path fifo = Fifo.create(dir, "fifo");
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

    @ParameterizedTest
    @ValueSource(strings = {"c 1 3", "p"})
    void aTargetThatIsNoRegularFileIsRefusedAndLeftAsItWas(String node) throws Exception {
        Path source = Files.write(dir.resolve("source"), new byte[100_000]);
        Path target = dir.resolve("node");
        List<String> mknod = new ArrayList<>(List.of("mknod", target.toString()));
        mknod.addAll(List.of(node.split(" ")));
        assertEquals(0, new ProcessBuilder(mknod).inheritIO().start().waitFor(), "mknod " + node);
        String before = describe(target);

        CopyRefusedException e = assertThrows(CopyRefusedException.class, () -> FileCopy.copy(source, target));
        String kind = node.startsWith("c") ? "a character device" : "a FIFO";
        assertTrue(e.getMessage().contains(target + " is " + kind + ", not a regular file"), e.getMessage());
        SampleCommand.Outcome copy = copyCommand(source.toString(), target.toString());
        assertEquals(1, copy.status());
        assertTrue(copy.errors().startsWith("error: " + target + " is " + kind), copy.errors());
        assertEquals(before, describe(target), "left as it was");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of("node", "source"), left.map(p -> p.getFileName().toString()).sorted().toList(),
                    "no temporary file");
        }
    }

    /** A file's type, device number and size, as stat(1) says them without following a link. */
    private static String describe(Path file) throws Exception {
        Process stat = new ProcessBuilder("stat", "-c", "%F %t:%T %s", file.toString()).start();
        String said = new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, stat.waitFor(), said);
        return said;
    }

    @Test
    void aSymlinkTargetStaysALinkAndTheFileItLeadsToTakesTheCopy() throws Exception {
        byte[] data = new byte[300_000];
        new Random(7).nextBytes(data);
        Path source = Files.write(dir.resolve("source"), data);
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        Path file = Files.writeString(elsewhere.resolve("file"), "the old file");
        Path link = Files.createSymbolicLink(dir.resolve("link"), Path.of("elsewhere/file"));

        assertEquals(0, copyCommand(source.toString(), link.toString()).status());
        assertTrue(Files.isSymbolicLink(link), "still a link");
        assertEquals(Path.of("elsewhere/file"), Files.readSymbolicLink(link));
        assertArrayEquals(data, Files.readAllBytes(file));
        try (Stream<Path> left = Files.list(elsewhere)) {
            assertEquals(1, left.count(), "no temporary file beside the file");
        }

        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), Path.of("nowhere"));
        SampleCommand.Outcome nowhere = copyCommand(source.toString(), dangling.toString());
        assertEquals(1, nowhere.status());
        assertTrue(nowhere.errors().contains(dangling + " is a symbolic link that leads nowhere"), nowhere.errors());
        assertFalse(Files.exists(dir.resolve("nowhere")), "not written through");
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
            assertTrue(e.getMessage().startsWith("WRITE the copy beside " + target + ": ENOSPC"), e.getMessage());
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
