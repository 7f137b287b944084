package dev.uringactors.actors.file;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.TestRings;
import dev.uringactors.ring.Fifo;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionStage;

import static dev.uringactors.actors.TestRings.assertFailsWith;
import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The CompletionStage facade: its stages complete on the file's ring thread, with no hop to another thread. */
@BothBackends
@ExtendWith(RequiresIoUring.class)
class UringFilesTest {
    @TempDir
    Path dir;
    private final ActorTestKit kit = ActorTestKit.create();
    private final UringFiles files = UringFiles.get(kit.system());

    @AfterEach
    void stop() {
        kit.shutdownTestKit(); // harmless when a test has shut it down already
    }

    @Tag("io-uring-only") // a ring thread; the JDK backend has none
    @Test
    void callbacksRunOnTheFilesRingThread() throws Exception {
        // A read of a FIFO stays in flight until something is written: the callbacks are attached before it ends.
        Path fifo = Fifo.create(dir, "fifo");
        FileHandle file = get(files.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
        CompletionStage<String> copied = files.read(file, 0, 4).thenApply(bytes -> Thread.currentThread().getName());
        CompletionStage<String> lent = files.read(file, 0, 4, buffer -> 0)
                .thenApply(n -> Thread.currentThread().getName());
        Files.write(fifo, "12345678".getBytes(StandardCharsets.US_ASCII));
        // Pekko's own ask hands each callback to another thread (a new one per callback where the JVM sees one CPU).
        assertEquals("uring-ring-" + file.ring(), get(copied));
        assertEquals("uring-ring-" + file.ring(), get(lent));
        get(files.close(file));
    }

    /**
     * A close is sent at once, not held until the file's requests have completed: the reads sent before it, some
     * of them still waiting for admission, read the file all the same, and a request sent after it is refused.
     */
    @Test
    void aCloseSentRightAfterReadsLetsThemReadTheFileAndRefusesLaterRequests() throws Exception {
        ActorTestKit limited = TestRings.kit("uring { rings = 1, admission.max-in-flight = 4 }");
        try {
            UringFiles limitedFiles = UringFiles.get(limited.system());
            byte[] content = new byte[64 * 1024];
            new Random(19).nextBytes(content);
            Path path = Files.write(dir.resolve("read-then-closed"), content);
            FileHandle file = get(limitedFiles.open(path));
            List<CompletionStage<ByteString>> reads = new ArrayList<>();
            for (int at = 0; at < content.length; at += 4096) {
                reads.add(limitedFiles.read(file, at, 4096));
            }
            CompletionStage<Done> closed = limitedFiles.close(file);
            CompletionStage<ByteString> later = limitedFiles.read(file, 0, 4096);
            for (int i = 0; i < reads.size(); i++) {
                assertArrayEquals(Arrays.copyOfRange(content, i * 4096, (i + 1) * 4096), get(reads.get(i)).toArray(),
                        "read " + i);
            }
            get(closed);
            assertFailsWith(ClosedChannelException.class, later);
        } finally {
            limited.shutdownTestKit();
        }
    }

    /**
     * A file still open when the actor system stops is closed with the rings: a close its owner sends while the
     * system stops may reach a file actor that has stopped first, and no fd may outlive the rings.
     */
    @Test
    void filesStillOpenAtShutdownAreClosedWithTheRings() throws Exception {
        Path path = Files.writeString(dir.resolve("left-open"), "x");
        get(files.open(path, StandardOpenOption.READ));
        OpenFds.Snapshot open = OpenFds.snapshot(OpenFds.Kind.under(dir));
        assertEquals(1, open.fds().size(), open::toString);
        kit.shutdownTestKit();
        OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "the file's fd is closed");
    }
}
