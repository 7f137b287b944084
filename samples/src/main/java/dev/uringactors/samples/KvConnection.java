package dev.uringactors.samples;

import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.util.ByteString;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Redis client's connection, on its ring's thread. It parses the client's commands, answers those that need
 * no key itself, and sends the others to the shards of their keys (each command of several keys as one request
 * per key). Answers come back in any order; each command has a {@link Slot} in a queue, and replies leave from
 * the head of the queue only, so the client gets them in the order of its commands. A shard that does not answer
 * within {@code samples.kv.request-timeout} (its node died, say) is answered with an error for that request.
 *
 * <p>What the connection holds for its client is bounded in bytes ({@code samples.kv.reply-budget}): the answers
 * arrived and not yet sent, plus what the answers on their way are assumed to cost (the largest answer lately).
 * A request goes to its shard only while that sum is under the budget, and commands are read only while no
 * request waits to go; past it reading stops, so a client that does not read is held back by TCP. An MGET's
 * array leaves element by element as its answers come, so a reply larger than the budget is never built whole.
 */
final class KvConnection implements KvCommands.Connection {
    /** Sent to itself after answers arrive, so that a burst of them leaves in one write. */
    private enum Flush {
        INSTANCE
    }

    /** Checks the commands out against the request timeout; a tick with none out stops the timer. */
    private enum Tick {
        INSTANCE
    }

    /** How a command's answers make its reply. */
    private enum Kind {
        /** The reply was made when the command was read. */
        DONE,
        /** One answer, the reply as it is. */
        ONE,
        /** An array of the answers (MGET). */
        ARRAY,
        /** The sum of integer answers (DEL, EXISTS, DBSIZE). */
        SUM,
        /** OK once every answer is (MSET, FLUSHALL). */
        ALL_OK,
        /** The elements of the array answers in one array (KEYS). */
        CONCAT,
        /** Made by the slot's own function (INFO with its keyspace section). */
        CUSTOM
    }

    /** Answers at least this long go out as writes of their own, not copied into one with their neighbours. */
    private static final int OWN_WRITE = 16 * 1024;

    /** A command waiting for its answers. Its requests have the sequence numbers firstSeq, firstSeq + 1, ... */
    private static final class Slot {
        final Kind kind;
        final long firstSeq;
        final byte[][] parts;
        int missing;
        byte[] reply;
        /** Bytes of its answers (or its reply) arrived and not yet written. */
        long held;
        /** For {@link Kind#ARRAY}: the parts written so far, after the array's header (-1: not even that). */
        int written = -1;
        /** For {@link Kind#CUSTOM}: the reply made of the answers. */
        java.util.function.Function<byte[][], byte[]> finish;

        Slot(Kind kind, long firstSeq, int parts) {
            this.kind = kind;
            this.firstSeq = firstSeq;
            this.parts = new byte[parts][];
            this.missing = parts;
        }
    }

    /**
     * A request of a command read: waiting for the budget to let it go to its shard, then out until its answer
     * comes (or its time is up).
     */
    private static final class Out {
        final Slot slot;
        final int index;
        final int shard;
        byte[][] args;
        boolean viaRegion;
        long sentAt;

        Out(Slot slot, int index, int shard, byte[][] args) {
            this.slot = slot;
            this.index = index;
            this.shard = shard;
            this.args = args;
        }

        long seq() {
            return slot.firstSeq + index;
        }
    }

    private static final AtomicLong IDS = new AtomicLong();

    private final ActorContext<Object> ctx;
    private final TimerScheduler<Object> timers;
    private final KvNode node;
    private final KvServer.Settings settings;
    private final ActorRef<KvMessage.Answer> self;
    private final ActorRef<ConnectionCommand> connection;
    private final AckedWriter writer;
    private final RespParser parser;
    private final RespOut out = new RespOut();
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private final ArrayDeque<Out> unsent = new ArrayDeque<>();
    /** The requests out, by sequence number. They went in its order, so the oldest have the lowest. */
    private final SeqTable<Out> pending = new SeqTable<>();
    /** No request below this sequence number is out: where the look for expired ones starts. */
    private long oldestOut;
    /** Per shard, the requests out through the region: while there are, the shard's next go that way too. */
    private final int[] viaRegion;
    private final long id = IDS.incrementAndGet();
    private final int localPort;
    private String name = "";
    private long nextSeq;
    /** Bytes of answers arrived and not yet written, over every slot. */
    private long heldBytes;
    /** What an answer on its way is assumed to cost: the largest lately, decaying by 1/32 with each answer. */
    private long assumedAnswer;
    /** A Flush is on its way to this actor. */
    private boolean flushSent;
    /** The request-timeout timer runs. */
    private boolean ticking;

    private KvConnection(ActorContext<Object> ctx, TimerScheduler<Object> timers, Connected connected,
                         KvNode node, KvServer.Settings settings) {
        this.ctx = ctx;
        this.timers = timers;
        this.node = node;
        this.settings = settings;
        this.self = ctx.getSelf().narrow();
        this.connection = connected.connection();
        this.localPort = connected.localAddress().getPort();
        this.writer = new AckedWriter(connection);
        this.parser = new RespParser(settings.limits());
        this.viaRegion = new int[node.shards];
        this.assumedAnswer = settings.replyBudget() / 16; // at first 16 requests out, fewer once answers are large
        node.counters.connectionsReceived.increment();
        node.counters.connections.increment();
    }

    static Behavior<Event> create(Connected connected, KvNode node, KvServer.Settings settings) {
        return Behaviors.<Object>setup(ctx -> Behaviors.withTimers(timers -> {
            connected.connection().tell(new Register(ctx.getSelf().narrow(), true));
            return new KvConnection(ctx, timers, connected, node, settings).behavior();
        })).narrow();
    }

    /** Commands are read and answered, in a behaviour per phase: this one, then {@link #closing()}. */
    private Behavior<Object> behavior() {
        return replies(true)
                .onMessage(Received.class, r -> {
                    parser.feed(r.data());
                    node.counters.inputBytes.add(r.data().size());
                    return moveOn(true);
                })
                .onMessage(PeerClosed.class, p -> {
                    advance(false); // the replies still go out
                    return closing();
                })
                .build();
    }

    /**
     * After QUIT, a protocol error, the client's end of stream, or a reply budget overrun: nothing more is read,
     * the replies of the commands read still go out, and the connection closes once they have.
     */
    private Behavior<Object> closing() {
        return replies(false)
                .onAnyMessage(m -> Behaviors.same())
                .build();
    }

    /** What both phases handle alike: answers, replies going out, timeouts; {@code open}: commands are read. */
    private BehaviorBuilder<Object> replies(boolean open) {
        return Behaviors.receive(Object.class)
                .onMessage(KvMessage.Answer.class, this::answered)
                .onMessageEquals(Flush.INSTANCE, () -> {
                    flushSent = false;
                    return moveOn(open);
                })
                .onMessageEquals(Tick.INSTANCE, () -> tick(open))
                .onMessage(Ack.class, a -> {
                    writer.acknowledged(a);
                    return moveOn(open);
                })
                .onMessage(CommandFailed.class, this::writeRefused)
                .onMessage(ConnectionClosed.class, c -> Behaviors.stopped())
                .onSignal(PostStop.class, this::counted);
    }

    /** Moves what can move ({@link #advance}); an open connection that stops reading then is closing. */
    private Behavior<Object> moveOn(boolean open) {
        return advance(open) || !open ? Behaviors.same() : closing();
    }

    private Behavior<Object> tick(boolean open) {
        if (slots.isEmpty()) { // idle for a tick: the timer stops until the next command
            ticking = false;
            timers.cancel(Tick.INSTANCE);
            return Behaviors.same();
        }
        expireOld();
        return moveOn(open);
    }

    /** A write the connection refused: the replies can no longer be kept in order. */
    private Behavior<Object> writeRefused(CommandFailed failed) {
        ctx.getLog().debug("kv connection: {}", failed.cause().getMessage());
        connection.tell(CloseCommand.ABORT);
        return closing();
    }

    private Behavior<Object> counted(PostStop stop) {
        node.counters.connections.decrement();
        return Behaviors.same();
    }

    /**
     * Everything that can move now: finished replies out, waiting requests to their shards, then, while
     * {@code open}, the commands read while nothing waits to go and the budget is not spent. Reading is held while
     * anything waits. Returns whether the connection stays open: false after QUIT, a protocol error, or a reply
     * budget overrun.
     */
    private boolean advance(boolean open) {
        open = write(open);
        dispatch();
        RespParser.Outcome outcome;
        while (open && unsent.isEmpty() && owed() < settings.replyBudget() && (outcome = parser.next()) != null) {
            if (outcome instanceof RespParser.Outcome.Command c) {
                open = command(c.args());
                dispatch();
            } else {
                done(RespOut.errorReply("ERR " + ((RespParser.Outcome.ProtocolError) outcome).message()));
                open = false;
            }
        }
        open = write(open);
        writer.holdReading(!unsent.isEmpty() || pending.size() >= settings.maxPending()
                || owed() >= settings.replyBudget());
        return open;
    }

    /** Bytes this connection holds for its client: answers not yet written, and written ones not yet sent. */
    private long owed() {
        return heldBytes + out.size() + writer.held();
    }

    /**
     * Sends waiting requests while what they are assumed to bring fits in the budget beside what is owed (or,
     * where the budget closes the connection instead, while fewer than {@code max-pending} are out).
     */
    private void dispatch() {
        while (!unsent.isEmpty() && pending.size() < settings.maxPending() && (settings.closeOverBudget()
                || owed() + pending.size() * assumedAnswer < settings.replyBudget())) {
            send(unsent.poll());
        }
    }

    private static final byte[] FLUSHALL = "FLUSHALL".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEYSPACE = "KEYSPACE".getBytes(StandardCharsets.US_ASCII);

    /** Handles one command; false for QUIT, after which nothing more is read. */
    private boolean command(List<byte[]> args) {
        node.counters.commands.increment();
        String command = KvCommands.NAMES.of(args.get(0));
        KvCommands.Spec spec = KvCommands.spec(command);
        if (spec == null) {
            done(KvCommands.unknown(args));
        } else if (!spec.arityOk(args.size()) || (command.equals("MSET") && args.size() % 2 == 0)) {
            done(KvCommands.wrongArity(command));
        } else if (command.equals("QUIT")) {
            done(RespOut.OK);
            return false;
        } else if (command.equals("INFO")) {
            info(args);
        } else {
            switch (spec.route()) {
                case CONNECTION -> done(KvCommands.answer(command, args, this));
                case ONE_KEY -> {
                    byte[][] request = args.toArray(new byte[command.equals("APPEND") ? 4 : args.size()][]);
                    request[0] = KvCommands.NAMES.bytes(command);
                    if (command.equals("APPEND")) {
                        request[3] = Integer.toString(settings.limits().maxBulkLength())
                                .getBytes(StandardCharsets.US_ASCII);
                    }
                    request(slot(Kind.ONE, 1), 0, KvKey.shardOf(request[1], node.shards), request);
                }
                case PER_KEY -> perKey(command, args);
                case EVERY_SHARD -> {
                    byte[][] request;
                    Kind kind;
                    switch (command) {
                        case "KEYS" -> {
                            request = new byte[][] {command.getBytes(StandardCharsets.US_ASCII), args.get(1)};
                            kind = Kind.CONCAT;
                        }
                        case "FLUSHDB", "FLUSHALL" -> {
                            if (!KvCommands.flushArgumentsOk(args)) {
                                done(KvCommands.SYNTAX);
                                return true;
                            }
                            request = new byte[][] {FLUSHALL};
                            kind = Kind.ALL_OK;
                        }
                        default -> {
                            request = new byte[][] {command.getBytes(StandardCharsets.US_ASCII)};
                            kind = Kind.SUM;
                        }
                    }
                    everyShard(slot(kind, node.shards), request);
                }
            }
        }
        return true;
    }

    private void everyShard(Slot slot, byte[][] request) {
        for (int shard = 0; shard < node.shards; shard++) {
            request(slot, shard, shard, request);
        }
    }

    /**
     * INFO: its sections made now, and the keyspace's (when asked for) once every shard has counted its keys.
     */
    private void info(List<byte[]> args) {
        java.util.Set<String> sections = KvCommands.infoSections(args);
        String text = KvCommands.info(sections, this);
        if (!sections.contains("keyspace")) {
            done(RespOut.bulkReply(text.getBytes(StandardCharsets.ISO_8859_1)));
            return;
        }
        Slot slot = slot(Kind.CUSTOM, node.shards);
        slot.finish = answers -> RespOut.bulkReply(((text.isEmpty() ? "" : text + "\r\n")
                + KvCommands.keyspace(answers)).getBytes(StandardCharsets.ISO_8859_1));
        everyShard(slot, new byte[][] {KEYSPACE});
    }

    /** MSET as a SET per pair, MGET as a GET per key, DEL and EXISTS as one per key. */
    private void perKey(String command, List<byte[]> args) {
        boolean mset = command.equals("MSET");
        int step = mset ? 2 : 1;
        int keys = (args.size() - 1) / step;
        Slot slot = slot(mset ? Kind.ALL_OK : command.equals("MGET") ? Kind.ARRAY : Kind.SUM, keys);
        byte[] each = KvCommands.NAMES.bytes(mset ? "SET" : command.equals("MGET") ? "GET" : command);
        for (int i = 0; i < keys; i++) {
            byte[] key = args.get(1 + i * step);
            byte[][] request = mset ? new byte[][] {each, key, args.get(2 + i * 2)} : new byte[][] {each, key};
            request(slot, i, KvKey.shardOf(key, node.shards), request);
        }
    }

    private Slot slot(Kind kind, int parts) {
        Slot slot = new Slot(kind, nextSeq, parts);
        nextSeq += parts;
        slots.add(slot);
        if (!ticking) {
            ticking = true;
            timers.startTimerAtFixedRate(Tick.INSTANCE, settings.requestTimeout().dividedBy(4));
        }
        return slot;
    }

    /** A reply known at once: after those before it. */
    private void done(byte[] reply) {
        if (slots.isEmpty()) {
            out.raw(reply);
        } else {
            Slot slot = slot(Kind.DONE, 0);
            slot.reply = reply;
            slot.held = reply.length;
            heldBytes += reply.length;
        }
    }

    /** Request {@code index} of {@code slot}, in line after the requests before it. */
    private void request(Slot slot, int index, int shard, byte[][] args) {
        unsent.add(new Out(slot, index, shard, args));
    }

    /**
     * To the shard's actor directly when it runs on this node and nothing of this connection for that shard is
     * still on its way through the region (which would let this request overtake it); else through the region.
     */
    private void send(Out out) {
        int shard = out.shard;
        long seq = out.seq();
        ActorRef<KvShard.Command> local = viaRegion[shard] == 0 ? node.localShard(shard) : null;
        KvMessage.Request request = new KvMessage.Request(shard, seq, out.args, self);
        out.args = null; // the shard's now
        if (local != null) {
            local.tell(request);
            node.counters.local.increment();
        } else {
            node.viaRegion(request);
            viaRegion[shard]++;
            node.counters.remote.increment();
        }
        out.viaRegion = local == null;
        out.sentAt = System.nanoTime();
        pending.put(seq, out);
    }

    private Behavior<Object> answered(KvMessage.Answer a) {
        Out p = pending.remove(a.seq());
        if (p == null) {
            return Behaviors.same(); // the request timed out before
        }
        assumedAnswer = Math.max(a.reply().length, assumedAnswer - (assumedAnswer >> 5));
        arrived(p, a.reply());
        if (!flushSent) { // the burst of answers this one is in, handled in one go
            flushSent = true;
            ctx.getSelf().tell(Flush.INSTANCE);
        }
        return Behaviors.same();
    }

    private void arrived(Out p, byte[] answer) {
        if (p.viaRegion) {
            viaRegion[p.shard]--;
        }
        Slot slot = p.slot;
        slot.parts[p.index] = answer;
        slot.held += answer.length;
        heldBytes += answer.length;
        if (--slot.missing == 0 && slot.kind != Kind.ARRAY) {
            slot.reply = combine(slot);
        }
    }

    private static byte[] combine(Slot slot) {
        for (byte[] part : slot.parts) {
            if (part.length > 0 && part[0] == '-' && slot.kind != Kind.ONE && slot.kind != Kind.CUSTOM) {
                return part; // a shard's error: the command's reply
            }
        }
        return switch (slot.kind) {
            case ONE -> slot.parts[0];
            case ALL_OK -> RespOut.OK;
            case CONCAT -> {
                int n = 0;
                RespOut elements = new RespOut();
                for (byte[] part : slot.parts) {
                    int header = 0;
                    while (part[header] != '\r') {
                        header++;
                    }
                    n += Integer.parseInt(new String(part, 1, header - 1, StandardCharsets.US_ASCII));
                    elements.raw(java.util.Arrays.copyOfRange(part, header + 2, part.length));
                }
                yield new RespOut().arrayHeader(n).raw(elements.toArray()).toArray();
            }
            case CUSTOM -> slot.finish.apply(slot.parts);
            case SUM -> {
                long sum = 0;
                for (byte[] part : slot.parts) {
                    sum += Long.parseLong(new String(part, 1, part.length - 3, StandardCharsets.US_ASCII));
                }
                yield RespOut.integerReply(sum);
            }
            case DONE, ARRAY -> throw new IllegalStateException(slot.kind + " slots are not combined");
        };
    }

    /**
     * Moves what is finished at the head of the queue out (an MGET's elements as far as they have come); once the
     * connection is no longer {@code open}, closes if that was the last of it. Returns whether it stays open:
     * where the budget closes the connection, an open one that owes its client more than that is aborted.
     */
    private boolean write(boolean open) {
        for (Slot head; (head = slots.peek()) != null && written(head); ) {
            slots.poll();
        }
        flushOut();
        if (open && settings.closeOverBudget() && owed() >= settings.replyBudget()) {
            ctx.getLog().debug("kv connection {}: {} bytes owed to its client, over the budget; closing", id,
                    owed());
            connection.tell(CloseCommand.ABORT);
            return false;
        } else if (!open && slots.isEmpty()) {
            writer.closeWhenWritten();
        }
        return open;
    }

    /** Writes what of {@code head} has arrived; whether that was all of it. */
    private boolean written(Slot head) {
        if (head.kind != Kind.ARRAY) {
            if (head.reply != null) {
                emit(head.reply);
                heldBytes -= head.held;
            }
            return head.reply != null;
        }
        if (head.written < 0) {
            out.arrayHeader(head.parts.length);
            head.written = 0;
        }
        while (head.written < head.parts.length && head.parts[head.written] != null) {
            byte[] element = head.parts[head.written];
            head.parts[head.written++] = null; // not held here once written
            emit(element);
            head.held -= element.length;
            heldBytes -= element.length;
        }
        return head.written == head.parts.length;
    }

    /** A small reply joins the write being made; a large one goes as it is, after that write. */
    private void emit(byte[] reply) {
        if (reply.length < OWN_WRITE) {
            out.raw(reply);
        } else {
            flushOut();
            node.counters.outputBytes.add(reply.length);
            writer.write(ByteString.fromArrayUnsafe(reply)); // answers are never changed once made
        }
    }

    private void flushOut() {
        if (out.size() > 0) {
            node.counters.outputBytes.add(out.size());
            writer.write(out.take());
        }
    }

    /**
     * Answers the requests whose shards have not answered within the timeout with an error: the oldest out, as
     * far as the first that still has time (every request after it went later).
     */
    private void expireOld() {
        long now = System.nanoTime();
        long end = unsent.isEmpty() ? nextSeq : unsent.peek().seq(); // those from there on are not out yet
        byte[] timedOut = null;
        if (pending.size() == 0) { // every request before the end was answered
            oldestOut = end;
        }
        for (; oldestOut < end; oldestOut++) {
            Out p = pending.get(oldestOut);
            if (p == null) {
                continue; // answered
            }
            if (now - p.sentAt < settings.requestTimeout().toNanos()) {
                break;
            }
            pending.remove(oldestOut);
            if (timedOut == null) {
                timedOut = RespOut.errorReply("TRYAGAIN no answer from the shard within %d ms (its node may be "
                        + "down)", settings.requestTimeout().toMillis());
            }
            arrived(p, timedOut); // INFO counts the keys without that shard's
        }
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void name(String name) {
        this.name = name;
    }

    @Override
    public int port() {
        return localPort;
    }

    @Override
    public int maxBulkLength() {
        return settings.limits().maxBulkLength();
    }

    @Override
    public KvNode.Counters counters() {
        return node.counters;
    }

    @Override
    public boolean appendOnly() {
        return settings.aof().isPresent();
    }

    @Override
    public String fsync() {
        return settings.fsync().name().toLowerCase(Locale.ROOT);
    }

    @Override
    public int membersUp() {
        int up = 0;
        for (Member m : Cluster.get(ctx.getSystem()).state().getMembers()) {
            up += m.status() == MemberStatus.up() ? 1 : 0;
        }
        return up;
    }

    @Override
    public int shardsLocal() {
        return node.shardsLocal();
    }
}
