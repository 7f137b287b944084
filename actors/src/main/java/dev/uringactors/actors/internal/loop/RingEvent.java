package dev.uringactors.actors.internal.loop;

import dev.uringactors.actors.RingFailedException;

import java.util.function.Consumer;

/**
 * What the actors on a ring hear of its lifecycle, through {@link RingLoop#subscribe}: the ring was opened anew
 * after a fault, or it is closed for good (it failed more often than {@code uring.supervision} allows, or the
 * system shuts down). Requests in flight at that moment have been answered already: file requests with a
 * {@link RingFailedException}, socket requests with an end that says their ring closed under them.
 */
public sealed interface RingEvent {
    /** Ring {@code ring} failed and now runs as {@code generation}. */
    record Restarted(int ring, int generation, RingFailedException cause) implements RingEvent {
    }

    /** Ring {@code ring} is closed for good: what is left on it closes without it. */
    record Closed(int ring, RuntimeException cause) implements RingEvent {
    }

    /** A subscriber that hears only of the ring's end: {@code action} runs with it. */
    static Consumer<RingEvent> whenClosed(Consumer<Closed> action) {
        return event -> {
            if (event instanceof Closed closed) {
                action.accept(closed);
            }
        };
    }
}
