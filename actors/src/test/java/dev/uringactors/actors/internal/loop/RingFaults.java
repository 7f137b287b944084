package dev.uringactors.actors.internal.loop;

/** A fault reported to a ring's supervisor as its loop would report one: the tests' way to fail a ring. */
public final class RingFaults {
    private RingFaults() {
    }

    /** Tells ring {@code ring}'s supervisor that the ring open as {@code generation} failed with {@code cause}. */
    public static void report(Rings rings, int ring, Throwable cause, int generation) {
        rings.supervisor(ring).tell(new RingSupervisor.Fault(cause, generation));
    }
}
