package dev.uringactors.actors.file;

import dev.uringactors.actors.RingOverloadedException;
import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.stream.UringTcp;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.RequiresIoUring;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.uringactors.actors.TestRings.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A million reads asked for at once: each is answered, with its bytes or a {@link RingOverloadedException}; no
 * more are ever unanswered than the ring's admission takes; the native memory the ring holds stays within
 * {@code uring.admission.max-in-flight} buffers; and the ring goes on serving a socket meanwhile. (That a socket's
 * turn comes before a backlog of file work is FairLoopTest's; here the backlog is bounded far below it.)
 */
@Tag("io-uring-only") // the rings' admission limits
@ExtendWith(RequiresIoUring.class)
class AdmissionTest {
    private static final int READS = 1_000_000;
    private static final int LENGTH = 4096;

    @TempDir
    Path dir;
    /**
     * The default request-timeout: the asks beyond what the ring takes are refused before they queue in its file
     * actor's mailbox, so none waits there long enough to time out (before that bound, a million asks waited out
     * 30 s on a loaded 2-core machine and failed with AskTimeoutExceptions, neither read nor refused).
     */
    private final ActorTestKit kit = TestRings.kit("uring { rings = 1 }");
    private final UringFiles files = UringFiles.get(kit.system());

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void aMillionReadsAtOnceAreEachAnsweredWithinBoundedNativeMemory() throws Exception {
        UringSettings settings = UringSettings.from(kit.system().settings().config());
        UringSettings.Admission admission = settings.admission();
        long maxUnanswered = (long) admission.maxInFlight() + admission.maxWaiting();
        byte[] content = new byte[1 << 20];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31);
        }
        Path path = Files.write(dir.resolve("data"), content);
        FileHandle file = get(files.open(path, StandardOpenOption.READ));
        UringTcp.ServerBinding echo = UringTcp.get(kit.system()).bind("127.0.0.1", 0)
                .to(Sink.foreach(c -> c.handleWith(Flow.of(ByteString.class), kit.system())))
                .run(kit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        AtomicLong read = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        var otherFailures = ConcurrentHashMap.<String>newKeySet();
        CountDownLatch answered = new CountDownLatch(READS);
        long unansweredPeak = 0;
        try (Socket client = new Socket("127.0.0.1", echo.localAddress().getPort())) {
            client.setSoTimeout(10_000);
            assertEchoes(client, 255); // the connection's receive buffers are registered before the baseline
            long nativeBefore = NativeBuffer.liveBytes();
            AtomicLong nativePeak = new AtomicLong(nativeBefore);
            for (int i = 0; i < READS; i++) {
                long position = (long) (i % 256) * LENGTH;
                files.read(file, position, LENGTH).whenComplete((bytes, failure) -> {
                    if (failure == null) {
                        if (bytes.size() == LENGTH && bytes.apply(0) == content[(int) position]) {
                            read.incrementAndGet();
                        } else {
                            otherFailures.add("wrong bytes at " + position);
                        }
                    } else if (unwrap(failure) instanceof RingOverloadedException) {
                        refused.incrementAndGet();
                    } else {
                        otherFailures.add(unwrap(failure).toString());
                    }
                    answered.countDown();
                });
                if (i % 1000 == 0) {
                    nativePeak.accumulateAndGet(NativeBuffer.liveBytes(), Math::max);
                    // + 1 below: the ring thread gives a call's place back just before it delivers its answer
                    unansweredPeak = Math.max(unansweredPeak, i + 1 - (READS - answered.getCount()));
                }
                if (i % 100_000 == 0) { // the socket on the same ring is served meanwhile
                    assertEchoes(client, i / 100_000);
                }
            }
            while (!answered.await(1, TimeUnit.MILLISECONDS)) {
                nativePeak.accumulateAndGet(NativeBuffer.liveBytes(), Math::max);
                assertTrue(answered.getCount() == 0 || otherFailures.size() < 10, otherFailures.toString());
            }
            assertEchoes(client, 42);
            long bound = (long) admission.maxInFlight() * (LENGTH + 4095); // a 4 KiB-aligned buffer per read in flight
            long grew = nativePeak.get() - nativeBefore;
            System.out.printf("%d reads at once: %d read, %d refused; at most %d unanswered (bound %d); native "
                    + "memory grew by at most %d KiB (bound %d KiB)%n", READS, read.get(), refused.get(),
                    unansweredPeak, maxUnanswered, grew >> 10, bound >> 10);
            assertTrue(unansweredPeak <= maxUnanswered + 1, unansweredPeak + " reads were unanswered at once");
            assertTrue(grew <= bound, "native memory grew by " + grew + " bytes, more than " + bound);
        } finally {
            echo.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        assertTrue(otherFailures.isEmpty(), otherFailures.toString());
        assertEquals(READS, read.get() + refused.get(), "every read answered");
        assertTrue(read.get() >= admission.maxInFlight(), "reads went through: " + read.get());
        get(files.close(file));
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** One byte there and back, within the socket's 10 s timeout (GC pauses of a second were seen under load). */
    private static void assertEchoes(Socket client, int b) throws Exception {
        OutputStream out = client.getOutputStream();
        InputStream in = client.getInputStream();
        out.write(b);
        out.flush();
        assertEquals(b & 0xff, in.read());
    }
}
