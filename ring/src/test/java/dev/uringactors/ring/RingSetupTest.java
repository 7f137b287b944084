package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@ExtendWith(RequiresIoUring.class)
class RingSetupTest {
    /** Every flag this kernel accepts gives a ring that runs a NOP. */
    @ParameterizedTest
    @EnumSource(value = SetupFlag.class, names = {"SQPOLL", "CLAMP", "SUBMIT_ALL", "COOP_TASKRUN", "SINGLE_ISSUER",
        "NO_SQARRAY"})
    void ringWithFlagRunsANop(SetupFlag flag) {
        assumeTrue(KernelFacts.setupAccepts(flag.bit | flag.companions),
                "a raw io_uring_setup refuses " + flag + " on Linux " + KernelFacts.release());
        try (Ring ring = Ring.open(8, flag)) {
            assertTrue(ring.has(flag));
            ring.nextSqe().prepNop().userData(5);
            assertEquals(0, Reaped.await(ring, 1).byUserData(5).res());
        }
    }

    @Test
    void sqpollPinnedWithIdleAndCqSizeRunsNops() {
        RingOptions options = RingOptions.defaults().withEntries(16).withCqEntries(64)
                .withFlags(SetupFlag.SQPOLL).withSqThreadCpu(0).withSqThreadIdle(Duration.ofMillis(5));
        try (Ring ring = Ring.open(options)) {
            assertTrue(ring.has(SetupFlag.SQ_AFF) && ring.has(SetupFlag.CQSIZE));
            assertEquals(64, ring.cqEntries());
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 16; i++) {
                    ring.nextSqe().prepNop().userData(i);
                }
                Reaped.await(ring, 16);
            }
        }
    }

    @Test
    void attachWqSharesTheFirstRingsWorkers() {
        try (Ring first = Ring.open(8, SetupFlag.SQPOLL);
             Ring second = Ring.open(RingOptions.defaults().withEntries(8).withFlags(SetupFlag.SQPOLL)
                     .withAttachWqFd(first.fd()))) {
            assertTrue(second.has(SetupFlag.ATTACH_WQ));
            second.nextSqe().prepNop().userData(1);
            Reaped.await(second, 1);
        }
    }

    @Test
    void disabledRingIsEnabledOnTheOwnerThread() throws Exception {
        Ring ring = Ring.open(8, SetupFlag.R_DISABLED, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
        CompletableFuture<Integer> owner = CompletableFuture.supplyAsync(() -> {
            ring.enable();
            ring.nextSqe().prepNop().userData(3);
            int res = Reaped.await(ring, 1).byUserData(3).res();
            assertTrue(ring.ringFdRegistered(), "registered with the enabling thread");
            ring.close();
            return res;
        });
        assertEquals(0, owner.get(10, TimeUnit.SECONDS));
    }

    @Test
    void submitFromANonIssuerThreadFailsWithEexistAndSaysWhy() throws Exception {
        try (Ring ring = Ring.open(8, SetupFlag.SINGLE_ISSUER)) {
            ring.nextSqe().prepNop();
            UringException e = CompletableFuture.supplyAsync(() -> assertThrows(UringException.class, ring::submit))
                    .get(10, TimeUnit.SECONDS);
            assertEquals(Errno.EEXIST, e.errno());
            assertTrue(e.hint().orElseThrow().contains("SINGLE_ISSUER"), e.getMessage());
            Reaped.await(ring, 1); // the owner can still submit it
        }
    }

    @Test
    void hybridIopollWithoutIopollIsRejectedWithAHint() {
        UringException e = assertThrows(UringException.class, () -> Ring.open(8, SetupFlag.HYBRID_IOPOLL));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("HYBRID_IOPOLL needs IOPOLL", e.hint().orElseThrow());
    }

    @Test
    void deferTaskrunWithoutSingleIssuerIsRejectedWithAHint() {
        UringException e = assertThrows(UringException.class, () -> Ring.open(8, SetupFlag.DEFER_TASKRUN));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("DEFER_TASKRUN needs SINGLE_ISSUER", e.hint().orElseThrow());
    }

    @Test
    void deferTaskrunWithSqpollIsRejectedWithAHint() {
        UringException e = assertThrows(UringException.class,
                () -> Ring.open(8, SetupFlag.SQPOLL, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.hint().orElseThrow().contains("cannot be combined with SQPOLL"), e.getMessage());
    }

    @Test
    void tooManyEntriesWithoutClampIsRejectedAndClampAcceptsThem() {
        UringException e = assertThrows(UringException.class, () -> Ring.open(65536));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("1..32768"), e.getMessage());
        try (Ring clamped = Ring.open(65536, SetupFlag.CLAMP)) {
            assertEquals(32768, clamped.sqEntries());
        }
    }

    @Test
    void setupHintsNameTheUsualCauses() {
        assertTrue(ErrorHints.forSetup(Errno.EPERM, 0).contains("io_uring_disabled"));
        assertTrue(ErrorHints.forSetup(Errno.EPERM, 0).contains("seccomp"));
        assertTrue(ErrorHints.forSetup(Errno.ENOSYS, 0).contains("seccomp"));
        assertTrue(ErrorHints.forSetup(Errno.ENOMEM, 0).contains("ulimit -l"));
        assertTrue(ErrorHints.forRegister(Errno.ENOMEM).contains("memlock"));
    }

    @Test
    void optionsRejectNonsense() {
        assertThrows(IllegalArgumentException.class, () -> RingOptions.defaults().withEntries(0));
        assertThrows(IllegalArgumentException.class, () -> RingOptions.defaults().withCqEntries(-1));
        assertThrows(IllegalArgumentException.class, () -> RingOptions.defaults().withSqThreadCpu(-2));
    }
}
