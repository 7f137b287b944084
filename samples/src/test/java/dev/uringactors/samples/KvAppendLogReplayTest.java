package dev.uringactors.samples;

import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replay of an append-only file whose end was cut at every byte offset, as a crash mid-append leaves it:
 * every record wholly before the cut is replayed, the rest is cut off the file; bytes that are not records fail.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KvAppendLogReplayTest {
    private final ActorTestKit kit = ActorTestKit.create("replay");
    private final UringFiles files = UringFiles.get(kit.system());
    private final ExecutorService blocking = Executors.newSingleThreadExecutor();

    @TempDir
    Path dir;

    @AfterAll
    void stop() {
        blocking.shutdownNow();
        kit.shutdownTestKit();
    }

    @Test
    void aFileCutAtAnyByteReplaysEveryRecordBeforeTheCut() throws Exception {
        List<ByteString> records = List.of(
                record("SET", "a", "1"),
                record("SET", "b\r\n", "\r\n*2\r\n$3\r\n"), // a value that looks like a record
                record("DEL", "a"),
                record("SET", "c", "x".repeat(300), "PXAT", "4102444800000"));
        ByteString file = records.stream().reduce(ByteString.emptyByteString(), ByteString::concat);
        Path path = dir.resolve("shard-0.aof");
        for (int cut = 0; cut <= file.size(); cut++) {
            Files.write(path, file.take(cut).toArray());
            List<String> replayed = new ArrayList<>();
            KvAppendLog log = log();
            KvAppendLog.Replayed r = log.open(args -> replayed.add(String.join(" ", strings(args))))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            log.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
            int whole = 0;
            long end = 0;
            while (whole < records.size() && end + records.get(whole).size() <= cut) {
                end += records.get(whole++).size();
            }
            int at = cut;
            assertEquals(whole, replayed.size(), () -> "records replayed of a file cut at " + at + ": " + replayed);
            assertEquals(end, r.kept(), "kept of a file cut at " + cut);
            assertEquals(cut - end, r.cut(), "cut off a file cut at " + cut);
            assertEquals(end, Files.size(path), "the file's size after the replay of a file cut at " + cut);
        }
    }

    @Test
    void bytesThatAreNotRecordsFailTheReplay() throws Exception {
        Path path = dir.resolve("shard-0.aof");
        ByteString whole = record("SET", "a", "1");
        ByteString damaged = whole.concat(ByteString.fromString("*2\r\n$x\r\n"));
        Files.write(path, damaged.toArray());
        KvAppendLog log = log();
        Exception e = assertThrows(Exception.class,
                () -> log.open(args -> { }).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertTrue(String.valueOf(e.getCause().getMessage()).contains("damaged after byte " + whole.size()), e.toString());
        log.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(damaged.size(), Files.size(path), "a damaged file is left as it was");
    }

    private KvAppendLog log() {
        return new KvAppendLog(files, blocking, 1 << 20, dir, 0, KvAppendLog.Fsync.NO, new KvNode.Counters());
    }

    private static ByteString record(String... args) {
        RespOut out = new RespOut().arrayHeader(args.length);
        for (String a : args) {
            out.bulk(a.getBytes(StandardCharsets.ISO_8859_1));
        }
        return out.take();
    }

    private static List<String> strings(byte[][] args) {
        List<String> s = new ArrayList<>();
        for (byte[] a : args) {
            s.add(new String(a, StandardCharsets.ISO_8859_1));
        }
        return s;
    }
}
