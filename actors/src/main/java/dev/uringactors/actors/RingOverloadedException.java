package dev.uringactors.actors;

/**
 * The answer to a request that a ring refused at once because it already had as many requests in the kernel
 * ({@code uring.admission.max-in-flight}) and waiting ({@code uring.admission.max-waiting}) as it takes. The
 * request was not carried out; retry it later, or send less at once.
 */
public final class RingOverloadedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Ring {@code ring} refused a request with {@code inFlight} requests in the kernel and {@code waiting} waiting. */
    public RingOverloadedException(int ring, int inFlight, int waiting) {
        super("ring " + ring + " is overloaded: " + inFlight + " requests in flight (uring.admission.max-in-flight) and "
                + waiting + " waiting (uring.admission.max-waiting); the request was not carried out", null, false,
                false);
    }
}
