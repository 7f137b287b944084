package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.KernelFacts;
import dev.uringactors.ring.OpenFds;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.uringactors.actors.TestRings.assertFailsWith;
import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code UringFiles} on the JDK backend calls the file channels with no actor between: a chain of reads, each
 * issued as the one before completes, goes on in place on the dispatcher's thread, without growing the stack and
 * without keeping the thread from the other calls; a closed handle is refused; a close racing reads leaves each
 * read one answer and no fd. Runs on the JDK backend whatever {@code uring.backend}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdkDirectCallsTest {
    /** One thread for the file calls: a chain that kept it would keep every other call waiting. */
    private final ActorTestKit kit = TestRings.kit("uring { backend = jdk, rings = 2, "
            + "jdk.file-dispatcher.thread-pool-executor.fixed-pool-size = 1 }");
    private final UringFiles files = UringFiles.get(kit.system());

    @TempDir
    Path tmp;

    @AfterAll
    void shutDown() {
        kit.shutdownTestKit();
    }

    private Path numbered(String name, int blocks) throws Exception {
        byte[] bytes = new byte[blocks * 8];
        ByteBuffer.wrap(bytes).asLongBuffer().put(java.util.stream.LongStream.range(0, blocks).toArray());
        return Files.write(tmp.resolve(name), bytes);
    }

    @Test
    void aChainOf100kReadsRunsInPlaceWithoutOverflowingTheStack() throws Exception {
        FileHandle file = get(files.open(numbered("chain", 1024)));
        Chain chain = new Chain(files, file, 100_000);
        chain.next(0);
        assertTrue(chain.done.await(60, TimeUnit.SECONDS), "chain at read " + chain.reads.get());
        assertNull(chain.failure.get(), () -> "failed: " + chain.failure.get());
        assertEquals(100_000, chain.reads.get());
        // A read run in place has completed by the time read() returns; at most one in 33 goes to the queue.
        assertTrue(chain.completedAtOnce.get() > 90_000, "reads run in place: " + chain.completedAtOnce.get());
        get(files.close(file));
    }

    private static boolean awaitUninterruptibly(CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Reads one after the other, each issued by the callback of the one before, checking what each read. */
    private static final class Chain {
        private final UringFiles files;
        private final FileHandle file;
        private final int length;
        private final AtomicInteger reads = new AtomicInteger();
        private final AtomicInteger completedAtOnce = new AtomicInteger();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final CountDownLatch done = new CountDownLatch(1);

        Chain(UringFiles files, FileHandle file, int length) {
            this.files = files;
            this.file = file;
            this.length = length;
        }

        void next(int i) {
            long block = i % 1024;
            CompletionStage<ByteString> read = files.read(file, block * 8, 8);
            if (read.toCompletableFuture().isDone()) {
                completedAtOnce.incrementAndGet();
            }
            read.whenComplete((data, e) -> {
                if (e == null && data.asByteBuffer().getLong() != block) {
                    e = new AssertionError("read " + i + " got the wrong bytes");
                }
                if (e != null) {
                    failure.set(e);
                    done.countDown();
                } else if (reads.incrementAndGet() == length || stop.get()) {
                    done.countDown();
                } else {
                    next(i + 1);
                }
            });
        }
    }

    @Test
    void aChainWithoutEndLeavesTheOnlyThreadToTheOtherCalls() throws Exception {
        FileHandle file = get(files.open(numbered("fair", 1024)));
        Chain endless = new Chain(files, file, Integer.MAX_VALUE);
        endless.next(0);
        try {
            for (int i = 0; i < 20; i++) {
                ByteString read = files.read(file, 8L * i, 8).toCompletableFuture().get(10, TimeUnit.SECONDS);
                assertEquals(i, read.asByteBuffer().getLong());
            }
            assertEquals(1, endless.done.getCount(), "the chain was still running: " + endless.failure.get());
        } finally {
            endless.stop.set(true);
            assertTrue(endless.done.await(10, TimeUnit.SECONDS));
        }
        get(files.close(file));
    }

    @Test
    void aReaderThatReadsAgainInPlaceKeepsItsOwnView() throws Exception {
        FileHandle file = get(files.open(numbered("lent", 16)));
        long[] seen = get(files.read(file, 0, 8, outer -> {
            long inner = files.read(file, 8, 8, b -> b.getLong(0)).toCompletableFuture().join(); // in place
            return new long[] {outer.getLong(0), inner, outer.remaining()};
        }));
        assertArrayEquals(new long[] {0, 1, 8}, seen, "the inner read did not land in the outer reader's view");
        long big = get(files.read(file, 0, 1 << 20, ByteBuffer::remaining)); // past the thread's lent buffer
        assertEquals(128, big);
        get(files.close(file));
    }

    @Test
    void aLentReadOfAFileOpenedDirectLandsInAnAlignedBuffer() throws Exception {
        Path path = numbered("direct", 4096);
        int refused = KernelFacts.directOpenErrno(path);
        assumeTrue(refused == 0, () -> "the file system of " + tmp + " refuses O_DIRECT: " + Errno.name(refused));
        FileHandle file = get(files.open(path, UringOpenOption.DIRECT));
        for (int block = 0; block < 4; block++) { // the thread's buffer, reused
            long first = block * 4096L / 8;
            long read = get(files.read(file, block * 4096L, 4096, b -> b.getLong(0)));
            assertEquals(first, read);
        }
        get(files.close(file));
    }

    @Test
    void aCallbackThatLeavesItsThreadInterruptedBreaksNoFile() throws Exception {
        FileHandle file = get(files.open(numbered("interrupted", 16)));
        // The one file thread held by a reader, so that the first read below completes there, after its callback
        // is registered: the callback runs on that thread, and its read would run in place.
        CountDownLatch hold = new CountDownLatch(1);
        CompletionStage<Boolean> held = files.read(file, 0, 8, b -> awaitUninterruptibly(hold));
        AtomicReference<String> callbackThread = new AtomicReference<>();
        CompletableFuture<ByteString> second = files.read(file, 0, 8).toCompletableFuture()
                .thenCompose(first -> {
                    callbackThread.set(Thread.currentThread().getName());
                    Thread.currentThread().interrupt(); // as a callback that caught an interrupt and restored it
                    return files.read(file, 8, 8);
                });
        hold.countDown();
        assertTrue(get(held));
        assertEquals(1, get(second).asByteBuffer().getLong());
        assertTrue(callbackThread.get().contains("file-dispatcher"), callbackThread.get());
        assertEquals(2, get(files.read(file, 16, 8)).asByteBuffer().getLong(), "the file was closed under us");
        get(files.close(file));
    }

    @Test
    void everyCallWithAClosedHandleIsRefusedAsClosed() throws Exception {
        Path path = numbered("closed", 16);
        FileHandle file = get(files.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE));
        get(files.close(file));
        assertFailsWith(ClosedChannelException.class, files.read(file, 0, 8));
        assertFailsWith(ClosedChannelException.class, files.read(file, -1, 8)); // closed before bad
        assertFailsWith(ClosedChannelException.class, files.read(file, 0, 8, ByteBuffer::remaining));
        assertFailsWith(ClosedChannelException.class, files.read(file, new long[] {0, 8}, 8));
        assertFailsWith(ClosedChannelException.class, files.write(file, 0, ByteString.fromString("x")));
        assertFailsWith(ClosedChannelException.class, files.fsync(file));
        assertFailsWith(ClosedChannelException.class, files.stat(file));
        assertFailsWith(ClosedChannelException.class, files.close(file));
        assertFailsWith(ClosedChannelException.class, files.openBeneath(file, Path.of("x")));
        OpenFds.assertNoneOpen(OpenFds.Kind.under(tmp), "files left open");
    }

    @Test
    void readsRacingACloseGetOneAnswerEachAndLeaveNoFd() throws Exception {
        Path path = numbered("raced", 1024);
        TestProbe<StatusReply<ByteString>> answers = kit.createTestProbe();
        for (int round = 0; round < 20; round++) {
            FileHandle file = get(files.open(path));
            List<CompletableFuture<ByteString>> reads = new ArrayList<>();
            int told = 0;
            CompletionStage<?> closed = null;
            for (int i = 0; i < 200; i++) {
                if (i == 100) {
                    closed = files.close(file);
                }
                reads.add(files.read(file, 8L * i, 8).toCompletableFuture());
                files.ring(i % 2).tell(new RingProtocol.Read(file, 8L * i, 8, answers.getRef()));
                told++;
                int block = i;
                reads.add(files.read(file, 8L * i, 8, b -> b.getLong(0) == block ? b.remaining() : -1)
                        .thenApply(n -> ByteString.fromString(String.valueOf(n))).toCompletableFuture());
            }
            get(closed);
            int done = 0;
            for (CompletableFuture<ByteString> read : reads) {
                // The two reads of each block before the close took the file before it: they must succeed.
                boolean beforeClose = done < 200;
                try {
                    ByteString data = read.get(10, TimeUnit.SECONDS);
                    assertTrue(data.size() == 8 || data.utf8String().equals("8"), data::utf8String);
                } catch (ExecutionException e) {
                    assertFalse(beforeClose, () -> "read " + read + " sent before the close failed: " + e);
                    assertInstanceOf(ClosedChannelException.class, e.getCause());
                }
                done++;
            }
            assertEquals(400, done);
            for (int i = 0; i < told; i++) {
                StatusReply<ByteString> answer = answers.receiveMessage(Duration.ofSeconds(10));
                assertTrue(answer.isSuccess() ? answer.getValue().size() == 8
                        : answer.getError() instanceof ClosedChannelException, answer::toString);
            }
        }
        answers.expectNoMessage(Duration.ofMillis(200));
        OpenFds.assertNoneOpen(OpenFds.Kind.under(tmp), "files left open");
    }
}
