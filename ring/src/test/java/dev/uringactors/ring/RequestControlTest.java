package dev.uringactors.ring;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Timeouts, links, drains, cancellation, poll and ring-to-ring messages. */
@ExtendWith(RequiresIoUring.class)
class RequestControlTest {
    Ring ring;
    Pipe pipe;
    NativeBuffer buf;

    @BeforeEach
    void open() {
        ring = Ring.open(32, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
        pipe = new Pipe();
        buf = NativeBuffer.allocate(64);
    }

    @AfterEach
    void close() {
        ring.close();
        pipe.close();
        buf.close();
    }

    @Test
    void timeoutExpiresWithEtime() {
        try (NativeBuffer ts = NativeBuffer.timespec(Duration.ofMillis(5))) {
            long start = System.nanoTime();
            ring.nextSqe().prepTimeout(ts.address(), 0, 0).userData(1);
            assertEquals(-Errno.ETIME, Reaped.await(ring, 1).byUserData(1).res());
            assertTrue(System.nanoTime() - start >= 4_000_000, "fired after its time");
        }
    }

    @Test
    void timeoutWithCountCompletesAfterThatManyRequests() {
        try (NativeBuffer ts = NativeBuffer.timespec(Duration.ofSeconds(30))) {
            ring.nextSqe().prepTimeout(ts.address(), 2, 0).userData(1);
            ring.nextSqe().prepNop().userData(2);
            ring.nextSqe().prepNop().userData(3);
            assertEquals(0, Reaped.await(ring, 3).byUserData(1).res());
        }
    }

    @Test
    void linkTimeoutCancelsAReadThatTakesTooLong() {
        try (NativeBuffer ts = NativeBuffer.timespec(Duration.ofMillis(10))) {
            ring.nextSqe().prepRead(pipe.readFd, buf.address(), 64, -1).flags(SqeFlags.IO_LINK).userData(1);
            ring.nextSqe().prepLinkTimeout(ts.address(), 0).userData(2);
            Reaped r = Reaped.await(ring, 2);
            assertEquals(-Errno.ECANCELED, r.byUserData(1).res());
            assertEquals(-Errno.ETIME, r.byUserData(2).res());
        }
    }

    @Test
    void linkedWriteThenReadRunInOrder() {
        buf.write(0, new byte[] {1, 2, 3}, 0, 3);
        ring.nextSqe().prepWrite(pipe.writeFd, buf.address(), 3, -1).flags(SqeFlags.IO_LINK).userData(1);
        ring.nextSqe().prepRead(pipe.readFd, buf.address() + 32, 3, -1).userData(2);
        Reaped r = Reaped.await(ring, 2);
        assertEquals(3, r.byUserData(1).res());
        assertEquals(3, r.byUserData(2).res());
        assertEquals(buf.getInt(0) & 0xffffff, buf.getInt(32) & 0xffffff);
    }

    @Test
    void drainWaitsForEverythingBeforeIt() {
        try (NativeBuffer ts = NativeBuffer.timespec(Duration.ofMillis(20))) {
            ring.nextSqe().prepTimeout(ts.address(), 0, 0).userData(1);
            ring.nextSqe().prepNop().flags(SqeFlags.IO_DRAIN).userData(2);
            Reaped r = Reaped.await(ring, 2);
            assertEquals(1, r.cqes.get(0).userData(), "the drained NOP completes after the timeout");
            assertEquals(2, r.cqes.get(1).userData());
        }
    }

    @Test
    void asyncCancelEndsAPendingRead() {
        ring.nextSqe().prepRead(pipe.readFd, buf.address(), 64, -1).userData(1);
        ring.submit();
        ring.nextSqe().prepCancel(1, 0).userData(2);
        Reaped r = Reaped.await(ring, 2);
        assertEquals(-Errno.ECANCELED, r.byUserData(1).res());
        assertEquals(0, r.byUserData(2).res());
    }

    @Test
    void cqeSkipSuccessPostsNothingForSuccessfulRequests() {
        ring.nextSqe().prepNop().flags(SqeFlags.CQE_SKIP_SUCCESS).userData(1);
        ring.nextSqe().prepNop().userData(2);
        Reaped r = Reaped.await(ring, 1);
        ring.submitAndWait(0);
        ring.reap(r);
        assertEquals(1, r.cqes.size(), "only the second NOP posts: " + r.cqes);
        assertEquals(0, ring.inFlight());
    }

    @Test
    void asyncFlagStillCompletes() {
        ring.nextSqe().prepNop().flags(SqeFlags.ASYNC).userData(1);
        assertEquals(0, Reaped.await(ring, 1).byUserData(1).res());
    }

    @Test
    void pollAddFiresWhenThePipeBecomesReadable() {
        ring.nextSqe().prepPollAdd(pipe.readFd, OpFlags.POLLIN).userData(1);
        ring.submit();
        assertEquals(0, ring.pollCompletions());
        LibC.write(pipe.writeFd, buf.address(), 1);
        int events = Reaped.await(ring, 1).byUserData(1).res();
        assertTrue((events & OpFlags.POLLIN) != 0, "POLLIN in " + events);
    }

    @Test
    void multishotPollPostsPerEventWithMoreThenRemoveEndsIt() {
        ring.nextSqe().prepPollMultishot(pipe.readFd, OpFlags.POLLIN).userData(1);
        ring.submit();
        LibC.write(pipe.writeFd, buf.address(), 1);
        Reaped r = Reaped.await(ring, 1);
        LibC.read(pipe.readFd, buf.address(), 1);
        LibC.write(pipe.writeFd, buf.address(), 1);
        r.awaitMore(ring, 1);
        assertTrue(r.cqes.stream().allMatch(c -> (c.flags() & CqeFlags.F_MORE) != 0), "still armed: " + r.cqes);
        assertEquals(1, ring.inFlight(), "a multishot poll is one request in flight");
        ring.nextSqe().prepPollRemove(1).userData(2);
        r.awaitMore(ring, 2);
        assertTrue(r.cqes.stream().anyMatch(c -> c.userData() == 1 && CqeFlags.isFinal(c.flags())));
        assertEquals(0, r.byUserData(2).res());
        assertEquals(0, ring.inFlight());
    }

    @Test
    void msgRingPostsACompletionOnAnotherRing() {
        try (Ring other = Ring.open(8)) {
            ring.nextSqe().prepMsgRing(other.fd(), 4242, 99, 0).userData(1);
            assertEquals(0, Reaped.await(ring, 1).byUserData(1).res());
            Reaped received = Reaped.await(other, 1);
            assertEquals(4242, received.byUserData(UserData.MESSAGE | 99).res());
            assertTrue(UserData.isMessage(received.cqes.get(0).userData()));
        }
    }

    @Test
    void aReceivedMessageDoesNotEndARequestInFlight() {
        try (Ring other = Ring.open(8)) {
            other.nextSqe().prepRead(pipe.readFd, buf.address(), 64, -1).userData(7); // stays in flight
            other.submit();
            ring.nextSqe().prepMsgRing(other.fd(), 1, 99, 0).userData(1);
            Reaped.await(ring, 1);
            Reaped.await(other, 1);
            assertEquals(1, other.inFlight(), "the read is still in flight after the message");
            assertEquals(0, ring.inFlight());
        }
    }

    @Test
    void aFailedSkipSuccessRequestDoesNotEndAnotherInFlight() {
        ring.nextSqe().prepRead(pipe.readFd, buf.address(), 64, -1).userData(7); // stays in flight
        ring.nextSqe().prepRead(-1, buf.address(), 64, 0).flags(SqeFlags.CQE_SKIP_SUCCESS).userData(8); // EBADF
        Reaped r = Reaped.await(ring, 1);
        assertEquals(-Errno.EBADF, r.byUserData(8).res(), "its own user_data, without the ring's tag");
        assertEquals(1, ring.inFlight(), "the read is still in flight");
        assertTrue(ring.drain(r, 5_000_000_000L));
        assertEquals(-Errno.ECANCELED, r.byUserData(7).res(), "the drain waited for the read's own completion");
        assertEquals(0, ring.inFlight());
    }

    @Test
    void aFailedSkipSuccessLinkCancelsTheRestWithoutCompletionsAndTheSubmitterSaysSo() {
        ring.nextSqe().prepRead(-1, buf.address(), 64, 0).flags(SqeFlags.CQE_SKIP_SUCCESS | SqeFlags.IO_LINK)
                .userData(1); // EBADF
        ring.nextSqe().prepNop().flags(SqeFlags.IO_LINK).userData(2);
        ring.nextSqe().prepNop().userData(3);
        Reaped r = Reaped.await(ring, 1);
        assertEquals(-Errno.EBADF, r.byUserData(1).res());
        ring.submitAndWait(0, 20_000_000L);
        assertEquals(0, ring.reap(r), "the two NOPs behind it were cancelled silently");
        assertEquals(2, ring.inFlight(), "counted until the submitter says they post nothing");
        ring.silencedByFailedLink(2);
        assertEquals(0, ring.inFlight());
    }

    @Test
    void userDataAboveTheApplicationsRangeIsRefused() {
        Sqe sqe = ring.nextSqe().prepNop();
        assertThrows(IllegalArgumentException.class, () -> sqe.userData(-1));
        assertThrows(IllegalArgumentException.class, () -> sqe.userData(UserData.MAX + 1));
        sqe.userData(UserData.MAX);
    }
}
