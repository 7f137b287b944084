package dev.uringactors.actors.file;

import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.RingOverloadedException;
import dev.uringactors.actors.TestRings;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.uringactors.actors.TestRings.assertFailsWith;
import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The file calls of {@code UringFiles} a ring has not answered are bounded by its admission (max-in-flight plus
 * max-waiting): past it a call is refused at once, before it waits anywhere (a file actor's mailbox, the JDK
 * backend's dispatcher queue); a close never is. Readers that block hold the calls unanswered for as long as the
 * test needs, on either backend (on the rings they hold the ring thread itself).
 */
@BothBackends
@ExtendWith(RequiresIoUring.class)
class FileCallBoundsTest {
    private static final int MAX_IN_FLIGHT = 2;
    private static final int MAX_WAITING = 6;
    private static final int BOUND = MAX_IN_FLIGHT + MAX_WAITING;

    @TempDir
    Path dir;
    private final ActorTestKit kit = TestRings.kit("uring { rings = 1, admission { max-in-flight = " + MAX_IN_FLIGHT
            + ", max-waiting = " + MAX_WAITING + " } }");
    private final UringFiles files = UringFiles.get(kit.system());
    private final CountDownLatch readersMayReturn = new CountDownLatch(1);

    @AfterEach
    void stop() {
        readersMayReturn.countDown(); // never leave a ring thread blocked behind a failed assertion
        kit.shutdownTestKit();
    }

    @Test
    void callsPastTheBoundAreRefusedAtOnceAndTheBoundIsFreedByTheAnswers() throws Exception {
        FileHandle file = get(files.open(Files.write(dir.resolve("data"), new byte[] {1, 2, 3, 4}),
                StandardOpenOption.READ));
        List<CompletionStage<Integer>> held = holdBound(file);
        for (int i = 0; i < 10_000; i++) {
            CompletableFuture<ByteString> refused = files.read(file, 0, 4).toCompletableFuture();
            assertTrue(refused.isDone(), "call " + i + " past the bound was not refused at once");
            RingOverloadedException overloaded = assertFailsWith(RingOverloadedException.class, refused);
            assertTrue(overloaded.getMessage().contains("uring.admission.max-in-flight + uring.admission.max-waiting"),
                    overloaded.getMessage());
        }
        CompletableFuture<FileStat> stat = files.stat(dir).toCompletableFuture();
        assertTrue(stat.isDone(), "a call on a path past the bound was not refused at once");
        assertFailsWith(RingOverloadedException.class, stat);
        readersMayReturn.countDown();
        for (CompletionStage<Integer> read : held) {
            assertEquals(4, get(read), "a call within the bound is carried out");
        }
        assertEquals(4, get(files.read(file, 0, 4)).size(), "the answers gave the bound back");
        get(files.close(file));
    }

    @Test
    void aCloseIsNeverRefused() throws Exception {
        FileHandle file = get(files.open(Files.write(dir.resolve("data"), new byte[] {1, 2, 3, 4}),
                StandardOpenOption.READ));
        List<CompletionStage<Integer>> held = holdBound(file);
        assertFailsWith(RingOverloadedException.class, files.read(file, 0, 4));
        CompletableFuture<?> close = files.close(file).toCompletableFuture();
        readersMayReturn.countDown();
        get(close);
        for (CompletionStage<Integer> read : held) {
            assertEquals(4, get(read), "the reads taken before the close read the file");
        }
    }

    /** As many lent reads as the ring takes unanswered, each reader blocked until the test lets it return. */
    private List<CompletionStage<Integer>> holdBound(FileHandle file) {
        List<CompletionStage<Integer>> held = new ArrayList<>();
        for (int i = 0; i < BOUND; i++) {
            held.add(files.read(file, 0, 4, this::blockedReader));
        }
        return held;
    }

    private int blockedReader(ByteBuffer bytes) {
        try {
            assertTrue(readersMayReturn.await(30, TimeUnit.SECONDS), "the test never let the reader return");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return bytes.remaining();
    }
}
