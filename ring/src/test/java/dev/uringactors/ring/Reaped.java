package dev.uringactors.ring;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.fail;

/** Collects completions in tests and waits for them with a deadline. */
final class Reaped implements CompletionHandler {
    record Cqe(long userData, int res, int flags) {
    }

    final List<Cqe> cqes = new ArrayList<>();

    @Override
    public void onCompletion(long userData, int res, int flags) {
        cqes.add(new Cqe(userData, res, flags));
    }

    /** Submits and reaps until {@code n} completions have arrived in all, failing after 10 s. */
    static Reaped await(Ring ring, int n) {
        Reaped r = new Reaped();
        r.awaitMore(ring, n);
        return r;
    }

    Reaped awaitMore(Ring ring, int n) {
        int target = cqes.size() + n;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cqes.size() < target) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("waited 10 s for " + n + " completions, got " + (cqes.size() - target + n) + ": " + cqes);
            }
            ring.submitAndWait(1, Math.min(left, 100_000_000L));
            ring.reap(this);
        }
        return this;
    }

    Cqe byUserData(long userData) {
        return cqes.stream().filter(c -> c.userData == userData).findFirst()
                .orElseThrow(() -> new AssertionError("no completion with user_data " + userData + ": " + cqes));
    }
}
