package dev.uringactors.actors;

/**
 * With {@code uring.jmx = on}, the bean {@code dev.uringactors:type=Backend,system=<actor system>-<n>} says which
 * backend runs and why (the ring beans exist only under io_uring).
 */
public interface BackendMXBean {
    /** "io-uring" or "jdk", as {@code uring.backend} spells them. */
    String getBackend();

    /** Why, naming {@code uring.backend}; under {@code auto}, the kernel's refusal if io_uring was refused. */
    String getReason();
}
