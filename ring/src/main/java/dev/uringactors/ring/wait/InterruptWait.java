package dev.uringactors.ring.wait;

import dev.uringactors.ring.Ring;

import java.util.function.BooleanSupplier;

/**
 * Blocks in io_uring_enter until a completion arrives. The lowest CPU use; each wait costs a sleep and a
 * wake-up in the kernel (tens of microseconds on a VM).
 */
public final class InterruptWait implements WaitStrategy {
    @Override
    public int submitAndWait(Ring ring, BooleanSupplier wakeup) {
        if (wakeup.getAsBoolean() || ring.inFlight() == 0) {
            ring.submit();
            return ring.cqReady();
        }
        ring.submitAndWait(1);
        return ring.cqReady();
    }

    @Override
    public String name() {
        return "interrupt";
    }
}
