package dev.uringactors.samples;

import org.apache.pekko.actor.typed.ActorRef;

/** What crosses the cluster in the kv sample, written by {@link KvSerializer}. */
sealed interface KvMessage {
    /**
     * A command for one shard: its name upper case in {@code args[0]}, then its arguments; the answer goes to
     * {@code replyTo} with {@code seq}.
     */
    record Request(int shard, long seq, byte[][] args, ActorRef<Answer> replyTo) implements KvMessage, KvShard.Command {
    }

    /** The RESP reply to the request {@code seq}. */
    record Answer(long seq, byte[] reply) implements KvMessage {
    }
}
