package dev.uringactors.actors.internal.issue;

/**
 * Something a concern (TCP, files) registers with each generation of a ring, such as TCP's provided-buffer
 * ring: attached when a generation opens, detached when it has closed. This is how the issuer holds per-ring
 * kernel state without knowing what it is for. Both calls run on the ring's thread.
 */
public interface RingResource {
    /** {@code generation} has opened: what the resource registers belongs to it from now on (lazily is fine). */
    void attach(RingGeneration generation);

    /**
     * The generation has closed. {@code drained}: nothing was left in flight, so memory the kernel wrote into may
     * be freed; otherwise it is leaked on purpose (the kernel may still write it).
     */
    void detach(boolean drained);
}
