package dev.uringactors.actors.internal.backend;

import dev.uringactors.actors.BackendChoice;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the backend is chosen, once per actor system ({@code uring.backend}, by {@link BackendChoice}): the rings,
 * or the JDK's I/O where io_uring is refused or not wanted.
 */
public final class IoBackends implements Extension {
    private static final Logger log = LoggerFactory.getLogger(IoBackends.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final IoBackend backend;

    private IoBackends(ActorSystem<?> system) {
        UringSettings settings = UringSettings.from(system.settings().config());
        String instance = system.name() + "-" + INSTANCES.incrementAndGet();
        BackendChoice choice = BackendChoice.of(settings);
        this.backend = switch (choice.backend()) {
            case IO_URING -> new RingBackend(system, choice, new Rings(system, settings, instance));
            case JDK -> {
                if (settings.backend() == UringSettings.BackendMode.AUTO) {
                    log.warn("{}; running the JDK backend (Pekko IO's Tcp, JDK file channels) instead "
                            + "of io_uring. Set uring.backend = jdk to choose it without probing, or io-uring to "
                            + "fail instead", choice.reason());
                }
                yield new JdkBackend(system, choice, settings, instance);
            }
        };
    }

    /** The backend of {@code system}, chosen and started on first use. */
    public static IoBackend get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system).backend;
    }

    /** The rings of {@code system}; refused under the JDK backend, where none runs. */
    public static Rings rings(ActorSystem<?> system) {
        return get(system).rings();
    }

    /** The extension's id, for Pekko's registry. */
    public static final class Id extends ExtensionId<IoBackends> {
        private static final Id INSTANCE = new Id();

        private Id() {
        }

        @Override
        public IoBackends createExtension(ActorSystem<?> system) {
            return new IoBackends(system);
        }
    }
}
