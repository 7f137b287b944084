package dev.uringactors.samples.docs;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Bind;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.UringTcp;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.net.InetSocketAddress;

/** The TCP actor snippets of the docs (see {@link DocSnippets}): an echo server on Pekko IO's vocabulary. */
final class DocTcpActorSnippets {
    private DocTcpActorSnippets() {
    }

    static Behavior<TcpProtocol.Event> echoServer(InetSocketAddress address) {
        // snippet:tcp-actors-bind
        return Behaviors.setup(ctx -> {
            UringTcp.get(ctx.getSystem()).manager().tell(new Bind(ctx.getSelf(), address)); // Bound, then Connected
            return Behaviors.receive(TcpProtocol.Event.class)
                .onMessage(Connected.class, c -> {                 // its handler runs on the connection's ring
                    ctx.spawnAnonymous(echo(c.connection()), UringExtension.get(ctx.getSystem()).dispatcher(c.ring()));
                    return Behaviors.same();
                })
                .build();
        });
        // end
    }

    // snippet:tcp-actors
    static Behavior<TcpProtocol.Event> echo(ActorRef<TcpProtocol.ConnectionCommand> connection) {
        return Behaviors.setup(ctx -> {
            connection.tell(new Register(ctx.getSelf(), false));     // this actor handles the connection
            return Behaviors.receive(TcpProtocol.Event.class)
                .onMessage(Received.class, r -> {
                    connection.tell(Write.of(r.data()));             // or new Write(data, ack) to be told when sent
                    return Behaviors.same();
                })
                .onMessage(TcpProtocol.ConnectionClosed.class, c -> Behaviors.stopped())
                .build();
        });
    }
    // end
}
