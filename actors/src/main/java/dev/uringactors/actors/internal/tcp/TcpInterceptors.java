package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import org.apache.pekko.actor.typed.Behavior;

import java.util.function.UnaryOperator;

/**
 * What a ring TCP manager wraps its actors in as it spawns them: each ring's listener (inside its supervision)
 * and each connection. The system's manager wraps nothing ({@link #NONE}); a test passes its own to a manager
 * it spawns, to fail or hold back an actor as nothing else can.
 */
public record TcpInterceptors(UnaryOperator<Behavior<ListenerCommand>> listener,
                              UnaryOperator<Behavior<Object>> connection) {
    /** Nothing wrapped. */
    public static final TcpInterceptors NONE = new TcpInterceptors(UnaryOperator.identity(),
            UnaryOperator.identity());
}
