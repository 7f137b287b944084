package dev.uringactors.actors;

import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The actor systems started in this JVM since the last {@link #takeAll()}: a Pekko extension that each typed
 * system loads at its start (this module's test reference.conf lists it in
 * {@code pekko.actor.typed.library-extensions}). Weak, so that a test JVM's hundreds of systems can be collected.
 */
public final class StartedSystems implements Extension {
    private static final Queue<WeakReference<ActorSystem<?>>> STARTED = new ConcurrentLinkedQueue<>();

    private StartedSystems() {
    }

    /** The systems started since the last call and still reachable; forgets them. */
    static List<ActorSystem<?>> takeAll() {
        List<ActorSystem<?>> systems = new ArrayList<>();
        for (WeakReference<ActorSystem<?>> ref; (ref = STARTED.poll()) != null; ) {
            ActorSystem<?> system = ref.get();
            if (system != null) {
                systems.add(system);
            }
        }
        return systems;
    }

    /** What {@code pekko.actor.typed.library-extensions} names. */
    public static final class Id extends ExtensionId<StartedSystems> {
        private static final Id INSTANCE = new Id();

        private Id() {
        }

        /** What Pekko looks up to load the extension. */
        public static Id getInstance() {
            return INSTANCE;
        }

        @Override
        public StartedSystems createExtension(ActorSystem<?> system) {
            STARTED.add(new WeakReference<>(system));
            return new StartedSystems();
        }
    }
}
