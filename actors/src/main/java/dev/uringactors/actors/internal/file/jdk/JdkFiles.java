package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.internal.file.CallBounds;
import dev.uringactors.actors.internal.file.FileService;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The file side of the JDK backend, behind {@code UringFiles}: a file actor per ring index (as many as the rings
 * would be, so that handles and {@code UringFiles.ring(i)} mean the same), the requests they and
 * {@code UringFiles} share, the one table of the files opened, and the dispatcher their blocking calls run on.
 * The files still open when the actor system ends are closed.
 */
public final class JdkFiles implements Extension, FileService {
    /** The Pekko dispatcher the blocking file calls run on. */
    public static final String DISPATCHER = "uring.jdk.file-dispatcher";
    private static final Logger log = LoggerFactory.getLogger(JdkFiles.class);
    private final JdkOpenFiles openFiles = new JdkOpenFiles();
    private final List<ActorRef<RingProtocol.Command>> actors = new ArrayList<>();
    private final AtomicBoolean registeredSaid = new AtomicBoolean();
    private final JdkFileRequests requests;

    private JdkFiles(ActorSystem<?> system) {
        UringExtension uring = UringExtension.get(system);
        Executor io = system.dispatchers().lookup(DispatcherSelector.fromConfig(DISPATCHER));
        Runnable registeredIgnored = () -> {
            if (registeredSaid.compareAndSet(false, true)) {
                log.warn("UringOpenOption.REGISTERED means nothing on the JDK backend: such files are opened as "
                        + "usual (said once)");
            }
        };
        requests = new JdkFileRequests(openFiles, io, system.executionContext(), uring.settings().maxIoSize(),
                new CallBounds(uring.ringCount(), uring.settings().admission()), registeredIgnored);
        for (int i = 0; i < uring.ringCount(); i++) {
            actors.add(system.systemActorOf(JdkFileActor.create(i, requests), "uring-jdk-files-" + i,
                    Props.empty()));
        }
        system.getWhenTerminated().thenRun(openFiles::closeAll);
    }

    /** The JDK backend's file side of {@code system}, started on first use. */
    public static JdkFiles get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system);
    }

    @Override
    public ActorRef<RingProtocol.Command> actor(int i) {
        return actors.get(i);
    }

    /** The file requests, for callers that are not actors ({@code UringFiles}): no actor between. */
    @Override
    public JdkFileRequests calls() {
        return requests;
    }

    /**
     * The files open through the actors, for a check of whether a handle is still open
     * ({@link JdkOpenFiles#isOpen}); the files themselves are used through the actors and {@link #requests}.
     */
    public JdkOpenFiles openFiles() {
        return openFiles;
    }

    /** The extension's id, for Pekko's registry. */
    public static final class Id extends ExtensionId<JdkFiles> {
        private static final Id INSTANCE = new Id();

        private Id() {
        }

        @Override
        public JdkFiles createExtension(ActorSystem<?> system) {
            return new JdkFiles(system);
        }
    }
}
