package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(RequiresIoUring.class)
class ProbeTest {
    @Test
    void reportListsTheKernelOpsFlagsAndFeatures() {
        Probe probe = RequiresIoUring.probe();
        assertTrue(probe.supports(Opcode.NOP) && probe.supports(Opcode.READ) && probe.supports(Opcode.OPENAT));
        assertTrue(probe.supports(Feature.SINGLE_MMAP));
        String report = probe.report();
        assertTrue(report.startsWith("io_uring probe: Linux " + Probe.kernelRelease()), report);
        assertTrue(report.contains("ops supported ("), report);
        assertTrue(report.contains(" READ_FIXED"), report);
        assertTrue(report.contains("setup flags: IOPOLL"), report);
    }

    @Test
    void flagsThisKernelAcceptsAreReportedAsSupported() {
        Probe probe = RequiresIoUring.probe();
        assertTrue(probe.supports(SetupFlag.SQPOLL), "SQPOLL since 5.1");
        assertTrue(probe.supports(SetupFlag.CQSIZE));
        assertTrue(probe.supports(SetupFlag.ATTACH_WQ));
    }
}
