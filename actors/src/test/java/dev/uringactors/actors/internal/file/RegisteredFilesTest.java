package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static dev.uringactors.actors.TestRings.assertFailsWith;
import static dev.uringactors.actors.TestRings.awaitGeneration;
import static dev.uringactors.actors.TestRings.fault;
import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Files opened into a ring's registered table (direct descriptors): used, closed, reused, and lost with a ring. */
@Tag("io-uring-only") // the rings' registered file tables
@ExtendWith(RequiresIoUring.class)
class RegisteredFilesTest {
    @TempDir
    Path dir;
    private ActorTestKit kit;
    private UringFiles files;

    private void start(String settings) {
        kit = TestRings.kit("uring { " + settings + " }");
        files = UringFiles.get(kit.system());
    }

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void aRegisteredFileIsReadWrittenAndClosedThroughItsSlot() throws Exception {
        start("rings = 1, files.registered-slots = 8");
        Path path = Files.writeString(dir.resolve("data"), "registered file");
        FileHandle file = get(files.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                UringOpenOption.REGISTERED));
        assertTrue(file.registered() && file.fd() < 8, "a slot of the table: " + file);
        assertEquals("registered file", get(files.read(file, 0, 100)).utf8String());
        assertEquals(4, get(files.write(file, 0, ByteString.fromString("REGI"))));
        get(files.fsync(file));
        assertFailsWith(IllegalArgumentException.class, files.stat(file)); // STATX takes no slot
        get(files.close(file));
        assertEquals("REGIstered file", Files.readString(path));
        assertFailsWith(ClosedChannelException.class, files.read(file, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> FileStat.of(file));
    }

    @Test
    void tenThousandOpensAndClosesNeverFillAnEightSlotTable() throws Exception {
        start("rings = 1, files.registered-slots = 8");
        Path path = Files.writeString(dir.resolve("data"), "x");
        FileHandle previous = null;
        for (int i = 0; i < 10_000; i++) {
            FileHandle file = get(files.open(path, UringOpenOption.REGISTERED));
            assertTrue(file.registered(), "open " + i);
            get(files.close(file));
            previous = file;
        }
        FileHandle reused = get(files.open(path, UringOpenOption.REGISTERED));
        assertEquals(previous.fd(), reused.fd(), "the freed slot is given again");
        assertFailsWith(ClosedChannelException.class, files.read(previous, 0, 1)); // the old handle does not reach the new file in its slot
        assertEquals("x", get(files.read(reused, 0, 1)).utf8String());
    }

    @Test
    void aRegisteredFileBelongsToItsRingAndGoesWithIt() throws Exception {
        start("rings = 2, files.registered-slots = 8, supervision { max-restarts = 3, within = 1m }");
        Path path = Files.writeString(dir.resolve("data"), "ring bound");
        FileHandle file = get(files.open(path, UringOpenOption.REGISTERED));
        assertThrows(IllegalArgumentException.class, () -> file.onRing(1 - file.ring()));

        UringExtension uring = UringExtension.get(kit.system());
        int generation = fault(kit.system(), file.ring(), "injected");
        awaitGeneration(kit.system(), file.ring(), generation + 1);
        assertFailsWith(ClosedChannelException.class, files.read(file, 0, 10)); // its table went with the old ring
        FileHandle again = get(files.open(path, UringOpenOption.REGISTERED));
        assertEquals("ring bound", get(files.read(again, 0, 100)).utf8String());
    }

    @Test
    void withoutATableRegisteredIsOpenedAsUsual() throws Exception {
        start("rings = 1, files.registered-slots = 0");
        Path path = Files.writeString(dir.resolve("data"), "plain");
        FileHandle file = get(files.open(path, UringOpenOption.REGISTERED));
        assertFalse(file.registered());
        assertEquals("plain", get(files.read(file, 0, 100)).utf8String());
        get(files.close(file));
    }

}
