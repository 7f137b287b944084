package dev.uringactors.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library's probe against what raw system calls say ({@link KernelFacts}), flag by flag, op by op, feature by
 * feature; and each one there on a kernel at least as new as the release the library says brought it (for ops,
 * 6.11 brought the newest, BIND and LISTEN).
 */
@ExtendWith(RequiresIoUring.class)
class ProbeTest {
    private static final Probe PROBE = Probe.run();

    @Test
    void reportListsTheKernelOpsFlagsAndFeatures() {
        String report = PROBE.report();
        assertTrue(report.startsWith("io_uring probe: Linux " + KernelFacts.release()), report);
        assertTrue(report.contains("ops supported ("), report);
        assertTrue(report.contains(" READ_FIXED"), report);
        assertTrue(report.contains("setup flags: IOPOLL"), report);
    }

    @ParameterizedTest
    @EnumSource(SetupFlag.class)
    void aFlagIsSupportedExactlyWhenARawSetupTakesIt(SetupFlag flag) {
        boolean raw = KernelFacts.setupAccepts(flag.bit | flag.companions);
        assertEquals(raw, PROBE.supports(flag), flag + " on Linux " + KernelFacts.release());
        if (KernelFacts.atLeast(flag.sinceKernel)) {
            assertTrue(raw, flag + " since " + flag.sinceKernel + ", and this is " + KernelFacts.release());
        }
    }

    @ParameterizedTest
    @EnumSource(Opcode.class)
    void anOpIsSupportedExactlyWhenTheKernelsProbeSaysSo(Opcode op) {
        BitSet raw = KernelFacts.supportedOps();
        assertEquals(raw.get(op.code()), PROBE.supports(op), op + " on Linux " + KernelFacts.release());
        if (KernelFacts.atLeast("6.11")) {
            assertTrue(raw.get(op.code()), op + " on Linux " + KernelFacts.release());
        }
    }

    @ParameterizedTest
    @EnumSource(Feature.class)
    void aFeatureIsSupportedExactlyWhenARawSetupReportsIt(Feature feature) {
        boolean raw = (KernelFacts.features() & feature.bit) != 0;
        assertEquals(raw, PROBE.supports(feature), feature + " on Linux " + KernelFacts.release());
        if (KernelFacts.atLeast(feature.sinceKernel)) {
            assertTrue(raw, feature + " since " + feature.sinceKernel + ", and this is " + KernelFacts.release());
        }
    }
}
