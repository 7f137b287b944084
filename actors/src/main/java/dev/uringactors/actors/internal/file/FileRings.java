package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.internal.backend.IoBackends;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The file side of a system, behind {@code UringFiles}: the backend's file actors, one per ring index, and the
 * one table of the files the rings' actors opened, which TCP consults too before it sends one (on the JDK backend
 * it stays empty: its files have a table of their own).
 */
public final class FileRings implements Extension {
    private final OpenFiles openFiles = new OpenFiles();
    private final FileService service;

    private FileRings(ActorSystem<?> system) {
        this.service = IoBackends.get(system).startFiles(openFiles);
    }

    /** The file side of {@code system}, started on first use. */
    public static FileRings get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system);
    }

    /** Ring {@code i}'s file actor. */
    public ActorRef<RingProtocol.Command> actor(int i) {
        return service.actor(i);
    }

    /** The calls behind {@code UringFiles}. */
    public FileCalls calls() {
        return service.calls();
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
