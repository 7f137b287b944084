package dev.uringactors.samples;

import dev.uringactors.actors.UringExtension;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The Cluster Sharding entity of one shard: it runs the shard itself ({@link KvShard}) as its child on ring
 * {@code shard % rings}, and passes it what the shard region delivers. On a ring, the shard answers a connection
 * of the same ring with no thread hop, and its file appends complete where it runs.
 */
final class KvShardEntity {
    private KvShardEntity() {
    }

    static Behavior<KvShard.Command> create(KvNode node, int shard, KvServer.Settings settings) {
        return Behaviors.setup(ctx -> {
            UringExtension uring = UringExtension.get(ctx.getSystem());
            ActorRef<KvShard.Command> store = ctx.spawn(KvShard.create(node, shard, settings), "shard",
                    uring.dispatcher(shard % uring.ringCount()));
            ctx.watch(store);
            return Behaviors.receive(KvShard.Command.class)
                    .onMessage(KvShard.Command.class, m -> {
                        store.tell(m); // requests, and the Stop of a hand-off: the shard stops once its appends are done
                        return Behaviors.same();
                    })
                    .onSignal(Terminated.class, t -> Behaviors.stopped())
                    .build();
        });
    }
}
