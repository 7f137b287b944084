package dev.uringactors.samples;

import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.util.ByteString;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One shard of the kv store, run on a ring by its Cluster Sharding entity ({@link KvShardEntity}): it holds all
 * the shard's keys (not an actor per key) and runs the single-key commands sent to it in the order they arrive.
 * While it runs it is listed in its node's {@link KvNode}, so that connections on this node reach it without
 * going through the shard region.
 *
 * <p>With an append-only file ({@code --aof}), the shard first replays its file, then records each write and
 * holds its reply until the record is written (and synced, under {@code always}). Records of the writes of one
 * turn of the mailbox go out as one append: group commit, one fsync for all of them.
 */
final class KvShard {
    /** What the entity takes. */
    interface Command {
    }

    /** Sent by Cluster Sharding (through the entity) when the shard moves away or the node leaves. */
    enum Stop implements Command {
        INSTANCE
    }

    /** Removes some expired keys nobody reads again; with a log, syncs what everysec owes. */
    private enum Tick implements Command {
        INSTANCE
    }

    /** Appends the records of this turn's writes (sent to itself after the first of them). */
    private enum Flush implements Command {
        INSTANCE
    }

    private record Replayed(Throwable failure) implements Command {
    }

    /** An append (or a rewrite) ended; the replies it held may go, or are answered with its failure. */
    private record Appended(List<Held> replies, Throwable failure) implements Command {
    }

    private record Held(ActorRef<KvMessage.Answer> replyTo, KvMessage.Answer answer) {
    }

    private static final Duration TICK_EVERY = Duration.ofMillis(100);
    private static final int SWEEP_BUDGET = 1000;
    private static final int STASH = 100_000;

    private final ActorContext<Command> ctx;
    private final KvNode node;
    private final int shard;
    private final KvShardState state = new KvShardState();
    /** Null without --aof. */
    private final KvAppendLog log;
    private final long rewriteSize;
    private RespOut batch = new RespOut();
    private List<Held> held = new ArrayList<>();
    private boolean flushSent;
    private boolean appending;
    private boolean stopping;

    private KvShard(ActorContext<Command> ctx, KvNode node, int shard, KvAppendLog log, long rewriteSize) {
        this.ctx = ctx;
        this.node = node;
        this.shard = shard;
        this.log = log;
        this.rewriteSize = rewriteSize;
    }

    static Behavior<Command> create(KvNode node, int shard, KvServer.Settings settings) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            timers.startTimerWithFixedDelay(Tick.INSTANCE, TICK_EVERY);
            KvAppendLog log = settings.aof().map(dir -> new KvAppendLog(UringFiles.get(ctx.getSystem()), dir, shard,
                    settings.fsync(), node.counters)).orElse(null);
            KvShard kv = new KvShard(ctx, node, shard, log, settings.aofRewriteSize());
            if (log == null) {
                node.started(shard, ctx.getSelf());
                return kv.running();
            }
            return Behaviors.withStash(STASH, stash -> kv.replaying(stash));
        }));
    }

    /** Replays the log, holding every request until it is done. */
    private Behavior<Command> replaying(StashBuffer<Command> stash) {
        RespParser parser = new RespParser(new RespLimits(Integer.MAX_VALUE - 64, 8, 64 * 1024, Long.MAX_VALUE));
        ctx.pipeToSelf(log.open(chunk -> {
            parser.feed(chunk); // on a ring thread, but the shard takes no message until the replay is done
            RespParser.Outcome o;
            while ((o = parser.next()) instanceof RespParser.Outcome.Command c) {
                byte[][] args = c.args().toArray(new byte[0][]);
                state.execute(KvShardState.ascii(args[0]), args, System.currentTimeMillis());
            }
            if (o != null) {
                throw new IllegalStateException("shard " + shard + "'s append-only file is damaged: "
                        + ((RespParser.Outcome.ProtocolError) o).message());
            }
        }), (done, failure) -> new Replayed(failure));
        return Behaviors.receive(Command.class)
                .onMessage(Replayed.class, r -> {
                    if (r.failure() != null) {
                        throw new IllegalStateException("shard " + shard + " cannot replay its append-only file",
                                r.failure());
                    }
                    ctx.getLog().debug("shard {} replayed {} bytes of its log", shard, log.size());
                    node.started(shard, ctx.getSelf());
                    return stash.unstashAll(running());
                })
                .onMessageEquals(Tick.INSTANCE, Behaviors::same)
                .onAnyMessage(m -> {
                    stash.stash(m);
                    return Behaviors.same();
                })
                .build();
    }

    private Behavior<Command> running() {
        return Behaviors.receive(Command.class)
                .onMessage(KvMessage.Request.class, this::request)
                .onMessageEquals(Flush.INSTANCE, () -> {
                    flushSent = false;
                    append();
                    return Behaviors.same();
                })
                .onMessage(Appended.class, this::appended)
                .onMessageEquals(Tick.INSTANCE, () -> {
                    state.expireSome(System.currentTimeMillis(), SWEEP_BUDGET);
                    if (log != null && !appending) {
                        appending = true;
                        ctx.pipeToSelf(log.syncIfDue(), (done, failure) -> new Appended(List.of(), failure));
                    }
                    return Behaviors.same();
                })
                .onMessageEquals(Stop.INSTANCE, () -> {
                    node.stopped(shard, ctx.getSelf()); // the next requests go through the region
                    stopping = true; // once the held replies are out
                    return stopIfIdle();
                })
                .onSignal(PostStop.class, s -> {
                    node.stopped(shard, ctx.getSelf());
                    if (log != null) {
                        log.close();
                    }
                    return Behaviors.same();
                })
                .build();
    }

    private Behavior<Command> request(KvMessage.Request r) {
        String name = KvShardState.ascii(r.args()[0]);
        long now = System.currentTimeMillis();
        if (name.equals("DBSIZE")) {
            r.replyTo().tell(new KvMessage.Answer(r.seq(), RespOut.integerReply(state.size(now))));
            return Behaviors.same();
        }
        KvShardState.Result result = state.execute(name, r.args(), now);
        KvMessage.Answer answer = new KvMessage.Answer(r.seq(), result.reply());
        if (log == null || !result.write()) {
            r.replyTo().tell(answer);
            return Behaviors.same();
        }
        state.record(r.args()[1], batch);
        held.add(new Held(r.replyTo(), answer));
        if (!flushSent) {
            flushSent = true;
            ctx.getSelf().tell(Flush.INSTANCE); // after the requests already in the mailbox: one append for all
        }
        return Behaviors.same();
    }

    /** Appends the batch unless an append is on its way (then the batch waits for it), or rewrites the log. */
    private void append() {
        if (appending) {
            return;
        }
        if (log.size() > rewriteSize) {
            appending = true;
            RespOut snapshot = new RespOut();
            state.snapshot(snapshot, System.currentTimeMillis());
            batch = new RespOut(); // the snapshot holds what the batch held
            List<Held> replies = held;
            held = new ArrayList<>();
            ctx.pipeToSelf(log.rewrite(snapshot.take()), (done, failure) -> new Appended(replies, failure));
        } else if (batch.size() > 0) {
            appending = true;
            ByteString records = batch.take();
            List<Held> replies = held;
            held = new ArrayList<>();
            ctx.pipeToSelf(log.append(records), (done, failure) -> new Appended(replies, failure));
        }
    }

    private Behavior<Command> appended(Appended a) {
        appending = false;
        if (a.failure() != null) {
            ctx.getLog().error("shard {}: the append-only file failed; its writes are not acknowledged", shard,
                    a.failure());
        }
        for (Held h : a.replies()) {
            h.replyTo().tell(a.failure() == null ? h.answer() : new KvMessage.Answer(h.answer().seq(),
                    RespOut.errorReply("ERR append-only file: %s", String.valueOf(a.failure().getMessage())
                            .replace('\r', ' ').replace('\n', ' '))));
        }
        append();
        return stopIfIdle();
    }

    private Behavior<Command> stopIfIdle() {
        return stopping && !appending && held.isEmpty() ? Behaviors.stopped() : Behaviors.same();
    }
}
