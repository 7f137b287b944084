package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.ring.PolledIo;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

import java.util.ArrayList;
import java.util.List;

/**
 * The rings' file side: one file actor per ring, on that ring's thread, sharing the table of the files they
 * opened (closed once the rings are), and what they learnt of the block devices' poll queues, on Pekko's
 * dispatcher for blocking calls; the calls are asks of them, bounded per ring.
 */
public final class RingFileService implements FileService {
    private final List<ActorRef<RingProtocol.Command>> actors = new ArrayList<>();
    private final FileCalls calls;

    public RingFileService(ActorSystem<?> system, Rings rings, OpenFiles openFiles) {
        calls = new AskedFileCalls(this::actor, system.scheduler(), system.executionContext(),
                rings.settings().requestTimeout(),
                new CallBounds(rings.count(), rings.settings().admission()));
        DeviceQueues devices = new DeviceQueues(PolledIo::of,
                system.dispatchers().lookup(DispatcherSelector.blocking()));
        RemoteMounts remoteMounts = RemoteMounts.read();
        for (int i = 0; i < rings.count(); i++) {
            actors.add(system.systemActorOf(FileActor.create(rings.loop(i), openFiles, devices, remoteMounts),
                    "uring-ring-" + i, rings.dispatcher(i)));
        }
        rings.whenClosed().thenRun(openFiles::closeAll);
    }

    @Override
    public ActorRef<RingProtocol.Command> actor(int i) {
        return actors.get(i);
    }

    @Override
    public FileCalls calls() {
        return calls;
    }
}
