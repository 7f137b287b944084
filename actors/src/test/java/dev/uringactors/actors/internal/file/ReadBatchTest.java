package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.BothBackends;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.uringactors.actors.TestRings.assertFailsWith;
import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Many reads in one request: every position answered once, in order; bad requests refused whole. */
@BothBackends
@ExtendWith(RequiresIoUring.class)
class ReadBatchTest {
    private static final int SIZE = 200_000;
    @TempDir
    Path dir;
    private final ActorTestKit kit = ActorTestKit.create();
    private final UringFiles files = UringFiles.get(kit.system());

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void everyPositionIsAnsweredOnceInOrder() throws Exception {
        byte[] content = new byte[SIZE];
        new Random(3).nextBytes(content);
        FileHandle file = get(files.open(Files.write(dir.resolve("data"), content)));
        long[] positions = new long[100];
        Random random = new Random(9);
        for (int i = 0; i < positions.length; i++) {
            positions[i] = random.nextInt(SIZE + 5000); // some past the end: short or empty answers
        }
        positions[0] = SIZE - 1;
        List<ByteString> reads = get(files.read(file, positions, 4096));
        assertEquals(positions.length, reads.size());
        for (int i = 0; i < positions.length; i++) {
            int from = (int) Math.min(positions[i], SIZE);
            assertArrayEquals(Arrays.copyOfRange(content, from, (int) Math.min(SIZE, from + 4096L)),
                    reads.get(i).toArray(), "read " + i + " at " + positions[i]);
        }
        assertEquals(List.of(), get(files.read(file, new long[0], 4096)));
        get(files.close(file));
    }

    @Test
    void aBatchWithABadPositionOrAClosedFileIsRefusedWhole() throws Exception {
        FileHandle file = get(files.open(Files.write(dir.resolve("small"), new byte[10])));
        assertFailsWith(IllegalArgumentException.class, files.read(file, new long[] {0, -1}, 10));
        get(files.close(file));
        assertFailsWith(ClosedChannelException.class, files.read(file, new long[] {0}, 10));
    }

}
