package dev.uringactors.samples;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.util.ByteString;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * One shard of the kv store, run on a ring by its Cluster Sharding entity ({@link KvShardEntity}): it holds all
 * the shard's keys (not an actor per key) and runs the single-key commands sent to it in the order they arrive.
 * While it runs it is listed in its node's {@link KvNode}, so that connections on this node reach it without
 * going through the shard region.
 *
 * <p>With an append-only file ({@code --aof}), the shard first replays its file, then records each write and
 * holds its reply until the record is written (and synced, under {@code always}). Records of the writes of one
 * turn of the mailbox go out as one append: group commit, one fsync for all of them. While a write is not yet in
 * the file, the replies of the commands after it wait too, reads included: no client hears of a value that is not
 * durable. An append that fails is answered with its error, as is every command held behind it, and the shard
 * starts again from its file (the failed records cut off it), so that what it holds is what the file holds.
 * Told to stop (handed off, or the node leaving), it stops once its appends are done and its file is synced,
 * whatever the fsync policy.
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

    private record Replayed(KvAppendLog.Replayed replayed, Throwable failure) implements Command {
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
    private KvShardState state = new KvShardState();
    /** Null without --aof. */
    private final KvAppendLog log;
    private final long rewriteSize;
    /** Holds the requests that come during a replay; null without --aof. */
    private StashBuffer<Command> stash;
    private RespOut batch = new RespOut();
    private List<Held> held = new ArrayList<>();
    private boolean flushSent;
    private boolean appending;
    /** Whether the append on its way holds replies (a sync alone holds none). */
    private boolean holding;
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
            KvAppendLog log = settings.aof().map(dir -> new KvAppendLog(UringFiles.get(ctx.getSystem()),
                    ctx.getSystem().dispatchers().lookup(DispatcherSelector.blocking()),
                    UringExtension.get(ctx.getSystem()).settings().maxIoSize(), dir, shard, settings.fsync(),
                    node.counters)).orElse(null);
            KvShard kv = new KvShard(ctx, node, shard, log, settings.aofRewriteSize());
            if (log == null) {
                node.started(shard, ctx.getSelf());
                return kv.running();
            }
            return Behaviors.withStash(STASH, stash -> {
                kv.stash = stash;
                return kv.replaying(log.open(kv::replayed));
            });
        }));
    }

    /** Applies a record of the log to the state being replayed. */
    private void replayed(byte[][] record) {
        state.execute(KvCommands.NAMES.of(record[0]), record, System.currentTimeMillis());
    }

    /** Waits for {@code replay} of the log into {@link #state}, holding every request until it is done. */
    private Behavior<Command> replaying(CompletionStage<KvAppendLog.Replayed> replay) {
        ctx.pipeToSelf(replay, Replayed::new);
        return Behaviors.receive(Command.class)
                .onMessage(Replayed.class, r -> {
                    if (r.failure() != null) {
                        throw new IllegalStateException("shard " + shard + " cannot replay its append-only file",
                                r.failure());
                    }
                    if (r.replayed().cut() > 0) {
                        ctx.getLog().warn("shard {}: the append-only file ended in a record cut short (a crash "
                                + "mid-append?): its last {} bytes were cut off, the {} before them replayed", shard,
                                r.replayed().cut(), r.replayed().kept());
                    }
                    ctx.getLog().debug("shard {} replayed {} bytes of its log", shard, r.replayed().kept());
                    node.started(shard, ctx.getSelf());
                    return stash.unstashAll(running());
                })
                .onMessageEquals(Tick.INSTANCE, Behaviors::same)
                .onAnyMessage(m -> {
                    stash.stash(m); // a Stop too: it comes after the requests before it
                    return Behaviors.same();
                })
                .onSignal(PostStop.class, s -> closeLog())
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
                .onSignal(PostStop.class, s -> closeLog())
                .build();
    }

    private Behavior<Command> closeLog() {
        node.stopped(shard, ctx.getSelf());
        if (log != null) {
            log.close();
        }
        return Behaviors.same();
    }

    private Behavior<Command> request(KvMessage.Request r) {
        String name = KvCommands.NAMES.of(r.args()[0]);
        long now = System.currentTimeMillis();
        KvShardState.Result result = name.equals("DBSIZE")
                ? new KvShardState.Result(RespOut.integerReply(state.size(now)), false)
                : state.execute(name, r.args(), now);
        KvMessage.Answer answer = new KvMessage.Answer(r.seq(), result.reply());
        if (log == null || (!result.write() && held.isEmpty() && !holding)) {
            r.replyTo().tell(answer);
            return Behaviors.same();
        }
        if (result.write()) {
            state.record(r.args(), batch);
        }
        held.add(new Held(r.replyTo(), answer)); // a write, or a command behind one not yet in the file
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
            RespOut snapshot = new RespOut();
            state.snapshot(snapshot, System.currentTimeMillis());
            batch = new RespOut(); // the snapshot holds what the batch held
            send(log.rewrite(snapshot.take()));
        } else if (batch.size() > 0) {
            send(log.append(batch.take()));
        } else {
            held.forEach(h -> h.replyTo().tell(h.answer())); // behind writes that are in the file now
            held = new ArrayList<>();
        }
    }

    /** Sends the held replies with {@code written}: they go once it is done. */
    private void send(CompletionStage<Done> written) {
        List<Held> replies = held;
        held = new ArrayList<>();
        appending = true;
        holding = !replies.isEmpty();
        ctx.pipeToSelf(written, (done, failure) -> new Appended(replies, failure));
    }

    private Behavior<Command> appended(Appended a) {
        appending = false;
        holding = false;
        if (a.failure() == null) {
            a.replies().forEach(h -> h.replyTo().tell(h.answer()));
            append();
            return stopIfIdle();
        }
        // What the shard holds may not be what the file holds: the commands it has not answered are answered
        // with the failure, and the shard starts again from its file.
        ctx.getLog().error("shard {}: writing its append-only file failed; {} commands are answered with the "
                + "error, and the shard reloads its file", shard, a.replies().size() + held.size(), a.failure());
        byte[] error = RespOut.errorReply("ERR append-only file: %s", String.valueOf(a.failure().getMessage())
                .replace('\r', ' ').replace('\n', ' '));
        a.replies().forEach(h -> h.replyTo().tell(new KvMessage.Answer(h.answer().seq(), error)));
        held.forEach(h -> h.replyTo().tell(new KvMessage.Answer(h.answer().seq(), error)));
        held = new ArrayList<>();
        batch = new RespOut();
        state = new KvShardState();
        return replaying(log.replay(this::replayed));
    }

    private Behavior<Command> stopIfIdle() {
        if (!stopping || appending || !held.isEmpty()) {
            return Behaviors.same();
        }
        if (log != null && log.unsynced()) { // what everysec or no still owes the device, before the file closes
            appending = true;
            ctx.pipeToSelf(log.sync(), (done, failure) -> new Appended(List.of(), failure));
            return Behaviors.same();
        }
        return Behaviors.stopped();
    }
}
