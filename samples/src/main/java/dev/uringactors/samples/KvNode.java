package dev.uringactors.samples;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.ShardingMessageExtractor;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * This node's part of the kv store: the shard region (Cluster Sharding, one entity per shard, entity id = shard
 * number) and the shards running here. A request for a shard running here goes straight to its actor; any other
 * goes to the region, which finds the shard's node (over Artery) or starts the shard.
 */
final class KvNode {
    static final EntityTypeKey<KvShard.Command> TYPE = EntityTypeKey.create(KvShard.Command.class, "kv-shard");

    final int shards;
    final Counters counters = new Counters();
    private final ActorRef<KvShard.Command> region;
    private final AtomicReferenceArray<ActorRef<KvShard.Command>> local;

    /** The store's counters, for {@code --stats} and INFO. */
    static final class Counters {
        final LongAdder commands = new LongAdder();
        /** Client connections open now. */
        final LongAdder connections = new LongAdder();
        final LongAdder connectionsReceived = new LongAdder();
        final LongAdder inputBytes = new LongAdder();
        final LongAdder outputBytes = new LongAdder();
        final LongAdder local = new LongAdder();
        final LongAdder remote = new LongAdder();
        final LongAdder appendBytes = new LongAdder();
        final LongAdder fsyncs = new LongAdder();
    }

    private KvNode(ActorSystem<?> system, KvServer.Settings settings) {
        this.shards = settings.shards();
        this.local = new AtomicReferenceArray<>(shards);
        this.region = ClusterSharding.get(system).init(Entity.of(TYPE,
                        entity -> KvShardEntity.create(this, Integer.parseInt(entity.getEntityId()), settings))
                .withMessageExtractor(new ShardPerEntity())
                .withStopMessage(KvShard.Stop.INSTANCE));
    }

    /** Starts this node's shard region. */
    static KvNode start(ActorSystem<?> system, KvServer.Settings settings) {
        return new KvNode(system, settings);
    }

    /** How many shards run on this node now. */
    int shardsLocal() {
        int running = 0;
        for (int shard = 0; shard < shards; shard++) {
            running += local.get(shard) != null ? 1 : 0;
        }
        return running;
    }

    /** The shard actor if the shard runs on this node now, or null. */
    ActorRef<KvShard.Command> localShard(int shard) {
        return local.get(shard);
    }

    /** Through the region: to wherever the shard runs, started if need be. */
    void viaRegion(KvMessage.Request request) {
        region.tell(request);
    }

    void started(int shard, ActorRef<KvShard.Command> actor) {
        local.set(shard, actor);
    }

    void stopped(int shard, ActorRef<KvShard.Command> actor) {
        local.compareAndSet(shard, actor, null);
    }

    /** The entity id is the shard number: one entity per shard, holding all its keys. */
    private static final class ShardPerEntity extends ShardingMessageExtractor<KvShard.Command, KvShard.Command> {
        @Override
        public String entityId(KvShard.Command message) {
            return Integer.toString(((KvMessage.Request) message).shard());
        }

        @Override
        public String shardId(String entityId) {
            return entityId;
        }

        @Override
        public KvShard.Command unwrapMessage(KvShard.Command message) {
            return message;
        }
    }
}
