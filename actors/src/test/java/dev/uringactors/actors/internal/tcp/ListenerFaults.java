package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Makes the listeners of a manager's binds fail as an unexpected accept error would: a manager spawned with
 * {@link #interceptors()} wraps each listener, inside its supervision, in an interceptor that remembers it and
 * throws on {@link #failAll}.
 */
final class ListenerFaults {
    /** The message only the interceptor knows: it fails the listener that gets it. */
    private enum Fail implements ListenerCommand { INSTANCE }

    private final Set<ActorRef<ListenerCommand>> listeners = ConcurrentHashMap.newKeySet();

    /** What a manager is spawned with to wrap its listeners so. */
    TcpInterceptors interceptors() {
        return new TcpInterceptors(this::wrap, UnaryOperator.identity());
    }

    private Behavior<ListenerCommand> wrap(Behavior<ListenerCommand> listener) {
        return Behaviors.intercept(() -> new BehaviorInterceptor<ListenerCommand, ListenerCommand>(
                ListenerCommand.class) {
            @Override
            public Behavior<ListenerCommand> aroundStart(TypedActorContext<ListenerCommand> ctx,
                                                         PreStartTarget<ListenerCommand> target) {
                listeners.add(ctx.asJava().getSelf());
                return target.start(ctx);
            }

            @Override
            public Behavior<ListenerCommand> aroundReceive(TypedActorContext<ListenerCommand> ctx,
                                                           ListenerCommand message,
                                                           ReceiveTarget<ListenerCommand> target) {
                if (message == Fail.INSTANCE) {
                    throw new TcpListener.AcceptFailedException("injected failure");
                }
                return target.apply(ctx, message);
            }
        }, listener);
    }

    /** Waits up to 10 s for {@code count} listeners to have started, then makes each fail. */
    void failAll(int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (listeners.size() < count && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(count, listeners.size(), "listeners started");
        listeners.forEach(l -> l.tell(Fail.INSTANCE));
    }
}
