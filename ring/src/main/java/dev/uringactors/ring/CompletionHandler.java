package dev.uringactors.ring;

/** Receives completions from {@link Ring#reap}: the fields of one CQE, with no object per completion. */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * @param userData what the request's SQE carried
     * @param res the result: bytes, an fd, 0, or {@code -errno}
     * @param flags {@link CqeFlags} bits
     */
    void onCompletion(long userData, int res, int flags);
}
