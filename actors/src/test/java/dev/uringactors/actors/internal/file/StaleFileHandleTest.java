package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.StandardOpenOption;

import static dev.uringactors.actors.TestRings.assertFailsWith;
import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A handle whose file was closed reaches no file, even once a later open has been given the same fd number: each
 * request fails with ClosedChannelException, and a second close closes nothing.
 */
@BothBackends
@ExtendWith(RequiresIoUring.class)
class StaleFileHandleTest {
    @TempDir
    Path dir;
    private final ActorTestKit kit = TestRings.kit("uring.rings = 2");
    private final UringFiles files = UringFiles.get(kit.system());

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void aClosedHandleReachesNoFileEvenWhenItsNumberIsReused() throws Exception {
        Path first = Files.writeString(dir.resolve("first"), "first file");
        Path second = Files.writeString(dir.resolve("second"), "second file, opened later");
        // The kernel gives the lowest free number. Another thread of this JVM may free a lower one meanwhile (hold
        // such opens until the stale number comes back), or take the stale one first (then close and open again).
        List<FileHandle> held = new ArrayList<>();
        FileHandle stale = null;
        FileHandle current = null;
        for (int attempt = 0; attempt < 10 && (current == null || current.fd() != stale.fd()); attempt++) {
            if (current != null) {
                held.add(current);
            }
            stale = get(files.open(first, StandardOpenOption.READ, StandardOpenOption.WRITE));
            get(files.close(stale));
            current = get(files.open(second, StandardOpenOption.READ, StandardOpenOption.WRITE));
            while (current.fd() < stale.fd() && held.size() < 64) {
                held.add(current);
                current = get(files.open(second, StandardOpenOption.READ, StandardOpenOption.WRITE));
            }
        }
        assertEquals(stale.fd(), current.fd(), "the closed file's number is given to the second file");

        assertFailsWith(ClosedChannelException.class, files.read(stale, 0, 100));
        assertFailsWith(ClosedChannelException.class, files.read(stale.onRing(1), 0, 100));
        assertFailsWith(ClosedChannelException.class, files.write(stale, 0, ByteString.fromString("overwritten")));
        assertFailsWith(ClosedChannelException.class, files.fsync(stale));
        assertFailsWith(ClosedChannelException.class, files.close(stale));

        assertEquals("second file, opened later", get(files.read(current, 0, 100)).utf8String(),
                "the second file is untouched and still open");
        assertEquals("second file, opened later", get(files.read(current.onRing(1), 0, 100)).utf8String(),
                "a copy for another ring reaches the same open file");
        assertEquals("first file", Files.readString(first, StandardCharsets.US_ASCII));
        get(files.close(current));
        assertFailsWith(ClosedChannelException.class, files.read(current, 0, 100));
        for (FileHandle other : held) {
            get(files.close(other));
        }
    }

    @Test
    void aHandleMadeUpFromAnOpenOnesNumbersButNotThatOneIsRefusedAsClosed() throws Exception {
        Path file = Files.writeString(dir.resolve("open"), "the open file");
        FileHandle open = get(files.open(file, StandardOpenOption.READ));
        for (FileHandle madeUp : new FileHandle[] {
            new FileHandle(open.fd(), open.path(), open.direct(), !open.polled(), open.ring(), open.id(), false),
            new FileHandle(open.fd(), open.path(), !open.direct(), open.polled(), open.ring(), open.id(), false),
            new FileHandle(open.fd(), dir.resolve("other"), open.direct(), open.polled(), open.ring(), open.id(),
                    false),
            new FileHandle(open.fd(), open.path(), open.direct(), open.polled(), open.ring(), open.id() + 1, false)}) {
            assertFailsWith(ClosedChannelException.class, files.read(madeUp, 0, 100));
            assertFailsWith(ClosedChannelException.class, files.close(madeUp));
        }
        assertEquals("the open file", get(files.read(open, 0, 100)).utf8String(), "the real one is still open");
        get(files.close(open));
    }
}
