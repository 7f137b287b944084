package dev.uringactors.actors;

/** The answer to every request that was in flight when its ring failed and was restarted. */
public final class RingFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RingFailedException(int ring, Throwable cause) {
        super("ring " + ring + " failed and was restarted; the request may or may not have been carried out: "
                + cause, cause);
    }
}
