package dev.uringactors.actors;

/**
 * The answer to a request that a ring refused at once because it already had as many requests in the kernel
 * ({@code uring.admission.max-in-flight}) and waiting ({@code uring.admission.max-waiting}) as it takes. The
 * request was not carried out; retry it later, or send less at once. The file calls of {@code UringFiles} are
 * refused so before they queue for a ring, once a ring has as many unanswered as its admission takes.
 */
public final class RingOverloadedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Ring {@code ring} refused a request with {@code inFlight} requests in the kernel and {@code waiting} waiting. */
    public RingOverloadedException(int ring, int inFlight, int waiting) {
        this("ring " + ring + " is overloaded: " + inFlight + " requests in flight (uring.admission.max-in-flight) and "
                + waiting + " waiting (uring.admission.max-waiting); the request was not carried out");
    }

    private RingOverloadedException(String message) {
        super(message, null, false, false);
    }

    /** Ring {@code ring} refused a file call with {@code limit} calls unanswered, as many as its admission takes. */
    public static RingOverloadedException unanswered(int ring, int limit) {
        return new RingOverloadedException("ring " + ring + " is overloaded: " + limit + " file calls unanswered "
                + "(uring.admission.max-in-flight + uring.admission.max-waiting); the call was not carried out");
    }
}
