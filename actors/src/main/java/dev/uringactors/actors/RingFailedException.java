package dev.uringactors.actors;

/**
 * The answer to every request that was in flight when its ring failed (the ring is then restarted, or after
 * too many failures closed), and to every request to a ring that stays closed.
 */
public final class RingFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The failure of ring {@code ring}, which ended a request: {@code cause} is why. */
    public RingFailedException(int ring, Throwable cause) {
        super("ring " + ring + " failed; the request may or may not have been carried out: " + cause, cause);
    }
}
