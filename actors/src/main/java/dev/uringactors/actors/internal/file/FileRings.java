package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.Backend;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.internal.file.jdk.JdkFiles;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.ring.PolledIo;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

import java.util.ArrayList;
import java.util.List;

/**
 * The file side of a system's rings, behind {@code UringFiles}: one file actor per ring, on that ring's thread,
 * the one table of the files they opened, which TCP consults too before it sends one, and what they learnt of
 * the block devices' poll queues, on Pekko's dispatcher for blocking calls. On the JDK backend the file actors
 * are {@link JdkFiles}'s, with the same protocol, and this table stays empty. Also the one set of calls that
 * {@code UringFiles} makes, whose bound on each ring's unanswered calls holds for the whole system.
 */
public final class FileRings implements Extension {
    private final OpenFiles openFiles = new OpenFiles();
    private final List<ActorRef<RingProtocol.Command>> actors = new ArrayList<>();
    private final FileCalls calls;

    private FileRings(ActorSystem<?> system) {
        Rings rings = Rings.get(system);
        if (rings.backend() == Backend.JDK) {
            JdkFiles jdk = JdkFiles.get(system);
            for (int i = 0; i < rings.count(); i++) {
                actors.add(jdk.actor(i));
            }
            calls = jdk.requests();
            return;
        }
        calls = new AskedFileCalls(this, system.scheduler(), rings.settings().requestTimeout(),
                new CallBounds(rings.count(), rings.settings().admission()));
        DeviceQueues devices = new DeviceQueues(PolledIo::of,
                system.dispatchers().lookup(DispatcherSelector.blocking()));
        for (int i = 0; i < rings.count(); i++) {
            actors.add(system.systemActorOf(FileActor.create(rings.loop(i), openFiles, devices), "uring-ring-" + i,
                    rings.dispatcher(i)));
        }
        rings.whenClosed().thenRun(openFiles::closeAll);
    }

    /** The file side of {@code system}'s rings, started on first use. */
    public static FileRings get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system);
    }

    /** Ring {@code i}'s file actor. */
    public ActorRef<RingProtocol.Command> actor(int i) {
        return actors.get(i);
    }

    /** The calls behind {@code UringFiles}. */
    public FileCalls calls() {
        return calls;
    }

    /** The files open through the actors of every ring. */
    public OpenFiles openFiles() {
        return openFiles;
    }

    /** The extension's id, for Pekko's registry. */
    public static final class Id extends ExtensionId<FileRings> {
        private static final Id INSTANCE = new Id();

        private Id() {
        }

        @Override
        public FileRings createExtension(ActorSystem<?> system) {
            return new FileRings(system);
        }
    }
}
