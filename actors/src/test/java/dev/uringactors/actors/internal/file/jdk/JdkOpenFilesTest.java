package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.file.FileHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table of the JDK backend's open files, and the end of the actor system. */
class JdkOpenFilesTest {
    @TempDir
    Path tmp;

    @Test
    void anOpenThatFinishesAfterTheSystemEndedIsClosedAndRefused() throws Exception {
        Path path = Files.writeString(tmp.resolve("late"), "late");
        JdkOpenFiles files = new JdkOpenFiles();
        FileChannel before = FileChannel.open(path);
        FileHandle open = files.opened(new JdkOpenFile(before, path, false), path, false, 0);
        assertTrue(files.isOpen(open));
        files.closeAll(); // the system ends while another open is still running on the file dispatcher
        assertFalse(before.isOpen(), "a file open when the system ended is closed");
        assertFalse(files.isOpen(open));
        FileChannel late = FileChannel.open(path);
        assertThrows(ClosedChannelException.class,
                () -> files.opened(new JdkOpenFile(late, path, false), path, false, 0));
        assertFalse(late.isOpen(), "the late open's channel is closed, not left in a table nobody closes");
    }
}
