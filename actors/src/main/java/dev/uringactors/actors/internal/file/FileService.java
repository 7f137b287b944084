package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.file.RingProtocol;
import org.apache.pekko.actor.typed.ActorRef;

/** The file actors of a backend, one per ring index, and the calls {@code UringFiles} makes of them. */
public interface FileService {
    /** The file actor of ring {@code i}. */
    ActorRef<RingProtocol.Command> actor(int i);

    /** The calls behind {@code UringFiles}. */
    FileCalls calls();
}
