package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.Backend;
import dev.uringactors.actors.BothBackends;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ExecutionException;

import static dev.uringactors.actors.TestRings.assertFailsWith;
import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Reads lent to a reader instead of copied: the reader sees exactly the bytes read, and nothing it does leaks. */
@BothBackends
@ExtendWith(RequiresIoUring.class)
class ReadWithTest {
    private static final int SIZE = 300_000;
    @TempDir
    Path dir;
    private final ActorTestKit kit = ActorTestKit.create();
    private final UringFiles files = UringFiles.get(kit.system());

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    private static byte[] remaining(ByteBuffer view) {
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return bytes;
    }

    @Test
    void theReaderSeesTheBytesReadInRegisteredAndPooledBuffersAndShortAtTheEnd() throws Exception {
        byte[] content = new byte[SIZE];
        new Random(5).nextBytes(content);
        FileHandle file = get(files.open(Files.write(dir.resolve("data"), content)));
        // 4 KiB fits a registered buffer (64 KiB by default), 100 KiB takes a pooled one.
        for (int length : new int[] {4096, 100_000}) {
            for (long position : new long[] {0, 12_345, SIZE - 1000, SIZE}) {
                byte[] read = get(files.read(file, position, length, ReadWithTest::remaining));
                int from = (int) position;
                assertArrayEquals(Arrays.copyOfRange(content, from, Math.min(SIZE, from + length)), read,
                        length + " bytes at " + position);
            }
        }
        get(files.close(file));
    }

    /** The ring lends the same view of a buffer again: what one reader did to it must not reach the next. */
    @Test
    void aReaderThatMovesTheViewLeavesTheNextAFreshOne() throws Exception {
        byte[] content = new byte[SIZE];
        new Random(6).nextBytes(content);
        FileHandle file = get(files.open(Files.write(dir.resolve("data"), content)));
        for (int length = 1; length < 200; length += 7) {
            int position = length * 101;
            byte[] read = get(files.read(file, position, length, view -> {
                assertEquals(0, view.position());
                assertEquals(ByteOrder.BIG_ENDIAN, view.order()); // as every new view
                byte[] bytes = remaining(view);
                view.position(0).limit(0).mark(); // what the next reader must not see
                return bytes;
            }));
            assertArrayEquals(Arrays.copyOfRange(content, position, position + length), read, length + " bytes");
        }
        get(files.close(file));
    }

    @Test
    void theViewIsReadOnlyAndAReaderThatThrowsOrAssertsAnswersWithIt() throws Exception {
        FileHandle file = get(files.open(Files.write(dir.resolve("small"), new byte[] {1, 2, 3})));
        assertFailsWith(ReadOnlyBufferException.class, files.read(file, 0, 3, view -> view.put((byte) 9)));
        assertFailsWith(IllegalStateException.class, files.read(file, 0, 3, view -> {
            throw new IllegalStateException("a reader's bug");
        }));
        ExecutionException asserted = assertThrows(ExecutionException.class, () -> get(files.read(file, 0, 3,
                view -> {
                    throw new AssertionError("a reader's failed assert");
                })));
        Throwable cause = asserted;
        while (cause.getCause() != null && !(cause instanceof AssertionError)) {
            cause = cause.getCause(); // Scala's futures box an Error in an ExecutionException of their own
        }
        assertInstanceOf(AssertionError.class, cause, asserted.toString());
        assertEquals(3, get(files.read(file, 0, 3, ByteBuffer::remaining)), "the ring serves on");
        if (UringExtension.get(kit.system()).backend() == Backend.IO_URING) { // only a ring has counters
            assertEquals(0, get(IoBackends.get(kit.system()).stats(file.ring())).requestsInFlight(),
                    "nothing left in flight");
        }
        get(files.close(file));
    }

    @Test
    void badRequestsAreRefusedBeforeTheReaderRuns() throws Exception {
        FileHandle file = get(files.open(Files.write(dir.resolve("small"), new byte[10])));
        assertFailsWith(IllegalArgumentException.class, files.read(file, -1, 10, ByteBuffer::remaining));
        assertFailsWith(IllegalArgumentException.class, files.read(file, 0, Integer.MAX_VALUE, ByteBuffer::remaining));
        get(files.close(file));
        assertFailsWith(ClosedChannelException.class, files.read(file, 0, 10, ByteBuffer::remaining));
    }
}
