package dev.uringactors.samples;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** Samples a figure of this process (RSS, threads) every 20 ms until closed; the highest it saw. */
final class Peak implements AutoCloseable {
    private final AtomicLong peak;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread sampler;

    Peak(String name, LongSupplier figure) {
        peak = new AtomicLong(figure.getAsLong());
        sampler = new Thread(() -> {
            while (running.get()) {
                peak.accumulateAndGet(figure.getAsLong(), Math::max);
                try {
                    Thread.sleep(20); // a sampling period, not a wait for a result
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, name + "-sampler");
        sampler.start();
    }

    long peak() {
        return peak.get();
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        sampler.join();
    }
}
