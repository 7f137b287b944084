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
 * A million reads asked for at once: each is answered, with its bytes or a {@link RingOverloadedException}; the
 * native memory the ring holds stays within {@code uring.admission.max-in-flight} buffers; and the ring goes on
 * serving a socket meanwhile.
 */
@Tag("io-uring-only") // the rings' admission limits
@ExtendWith(RequiresIoUring.class)
class AdmissionTest {
    private static final int READS = 1_000_000;
    private static final int LENGTH = 4096;

    @TempDir
    Path dir;
    /**
     * The asks queue in the file actor's mailbox before admission sees them, and a loaded 2-core machine takes
     * longer than the default 30 s request-timeout to work through a million: each would then fail with an
     * AskTimeoutException, neither read nor refused. The timeout is not what this test is about.
     */
    private final ActorTestKit kit = TestRings.kit("uring { rings = 1, request-timeout = 10m }");
    private final UringFiles files = UringFiles.get(kit.system());

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void aMillionReadsAtOnceAreEachAnsweredWithinBoundedNativeMemory() throws Exception {
        UringSettings settings = UringSettings.from(kit.system().settings().config());
        UringSettings.Admission admission = settings.admission();
        // A fair loop reaps the echo's bytes, runs its stage and sends them back within a few turns, each of up to
        // tasks-per-turn mailbox runs of dispatcher.throughput messages: with more reads than that waiting when it
        // is sent, an echo that comes back before they are all answered overtook them.
        long backlogToOvertake = 4L * settings.tasksPerTurn() * settings.dispatcherThroughput();
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
        int echoesThroughBacklog = 0;
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
                }
                if (i % 100_000 == 0) { // the socket on the same ring is served meanwhile
                    long sent = i + 1;
                    boolean backlog = sent - answeredSoFar(answered) > backlogToOvertake;
                    assertEchoes(client, i / 100_000);
                    if (backlog) {
                        echoesThroughBacklog++;
                        long answeredThen = answeredSoFar(answered);
                        assertTrue(answeredThen < sent, "echo " + i / 100_000 + " waited for all " + sent
                                + " reads before it: the ring starves its socket while it has file work");
                    }
                }
            }
            assertTrue(echoesThroughBacklog > 0, "no echo was sent while reads waited: fairness not tested");
            while (!answered.await(1, TimeUnit.MILLISECONDS)) {
                nativePeak.accumulateAndGet(NativeBuffer.liveBytes(), Math::max);
                assertTrue(answered.getCount() == 0 || otherFailures.size() < 10, otherFailures.toString());
            }
            assertEchoes(client, 42);
            long bound = (long) admission.maxInFlight() * (LENGTH + 4095); // a 4 KiB-aligned buffer per read in flight
            long grew = nativePeak.get() - nativeBefore;
            System.out.printf("%d reads at once: %d read, %d refused; native memory grew by at most %d KiB "
                    + "(bound %d KiB); %d echoes overtook a backlog%n", READS, read.get(), refused.get(), grew >> 10,
                    bound >> 10, echoesThroughBacklog);
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

    private static long answeredSoFar(CountDownLatch answered) {
        return READS - answered.getCount();
    }

    /**
     * One byte there and back, within the socket's 10 s timeout. How fast is no measure of fairness on a machine
     * that may be loaded (GC pauses of a second were seen under the flood); whether the echo overtook the reads
     * queued before it is.
     */
    private static void assertEchoes(Socket client, int b) throws Exception {
        OutputStream out = client.getOutputStream();
        InputStream in = client.getInputStream();
        out.write(b);
        out.flush();
        assertEquals(b & 0xff, in.read());
    }
}
