package dev.uringactors.samples;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

import java.time.Duration;

/**
 * One shard of the kv store as one Cluster Sharding entity: it holds all the shard's keys (not an actor per
 * key) and runs the single-key commands sent to it in the order they arrive. While it runs it is listed in its
 * node's {@link KvNode}, so that connections on this node reach it without going through the shard region.
 */
final class KvShard {
    /** What the entity takes. */
    interface Command {
    }

    /** Sent by Cluster Sharding when the shard moves away or the node leaves. */
    enum Stop implements Command {
        INSTANCE
    }

    /** Removes some expired keys nobody reads again. */
    private enum Sweep implements Command {
        INSTANCE
    }

    private static final Duration SWEEP_EVERY = Duration.ofMillis(100);
    private static final int SWEEP_BUDGET = 1000;

    private final ActorContext<Command> ctx;
    private final KvNode node;
    private final int shard;
    private final KvShardState state = new KvShardState();

    private KvShard(ActorContext<Command> ctx, KvNode node, int shard) {
        this.ctx = ctx;
        this.node = node;
        this.shard = shard;
    }

    static Behavior<Command> create(KvNode node, int shard) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            timers.startTimerWithFixedDelay(Sweep.INSTANCE, SWEEP_EVERY);
            node.started(shard, ctx.getSelf());
            return new KvShard(ctx, node, shard).behavior();
        }));
    }

    private Behavior<Command> behavior() {
        return Behaviors.receive(Command.class)
                .onMessage(KvMessage.Request.class, this::request)
                .onMessageEquals(Sweep.INSTANCE, () -> {
                    state.expireSome(System.currentTimeMillis(), SWEEP_BUDGET);
                    return Behaviors.same();
                })
                .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
                .onSignal(PostStop.class, s -> {
                    node.stopped(shard, ctx.getSelf());
                    return Behaviors.same();
                })
                .build();
    }

    private Behavior<Command> request(KvMessage.Request r) {
        String name = KvShardState.ascii(r.args()[0]);
        long now = System.currentTimeMillis();
        byte[] reply = name.equals("DBSIZE") ? RespOut.integerReply(state.size(now))
                : state.execute(name, r.args(), now).reply();
        r.replyTo().tell(new KvMessage.Answer(r.seq(), reply));
        return Behaviors.same();
    }
}
