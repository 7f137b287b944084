package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Gives back the file of a {@link WriteFile} with {@code closeAfter} that reached no connection: the connection had
 * stopped (its peer reset it, say) while its handler, not yet told, sent the file. The file was the connection's
 * to close, and nobody else would. One actor a system, fed the dead letters by the event stream.
 */
final class UndeliveredFiles {
    private UndeliveredFiles() {
    }

    static Behavior<DeadLetter> create() {
        return Behaviors.setup(ctx -> {
            ctx.getSystem().eventStream().tell(new EventStream.Subscribe<>(DeadLetter.class, ctx.getSelf()));
            return Behaviors.receiveMessage(dead -> {
                if (dead.message() instanceof WriteFile file && file.closeAfter()) {
                    UringFiles.get(ctx.getSystem()).close(file.file()); // closed already: nothing to close
                }
                return Behaviors.same();
            });
        });
    }
}
