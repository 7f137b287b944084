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
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Redis client's connection, on its ring's thread. It parses the client's commands, answers those that need
 * no key itself, and sends the others to the shards of their keys (each command of several keys as one request
 * per key). Answers come back in any order; each command has a {@link Slot} in a queue, and replies leave from
 * the head of the queue only, so the client gets them in the order of its commands. A shard that does not answer
 * within {@code samples.kv.request-timeout} (its node died, say) is answered with an error for that command.
 */
final class KvConnection implements KvCommands.Connection {
    /** Sent to itself after answers arrive, so that a burst of them leaves in one write. */
    private enum Flush {
        INSTANCE
    }

    /** Checks the oldest command against the request timeout. */
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

    /** A command waiting for its answers. Its requests have the sequence numbers firstSeq, firstSeq + 1, ... */
    private static final class Slot {
        final Kind kind;
        final long firstSeq;
        final byte[][] parts;
        final long since;
        int missing;
        byte[] reply;
        /** For {@link Kind#CUSTOM}: the reply made of the answers. */
        java.util.function.Function<byte[][], byte[]> finish;

        Slot(Kind kind, long firstSeq, int parts, long since) {
            this.kind = kind;
            this.firstSeq = firstSeq;
            this.parts = new byte[parts][];
            this.missing = parts;
            this.since = since;
        }
    }

    private record Pending(Slot slot, int index, int shard, boolean viaRegion) {
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
    private final Map<Long, Pending> pending = new HashMap<>();
    /** Per shard, the requests out through the region: while there are, the shard's next go that way too. */
    private final int[] viaRegion;
    private final long id = IDS.incrementAndGet();
    private final int localPort;
    private String name = "";
    private long nextSeq;
    private boolean flushSent;
    private boolean ticking;
    /** After QUIT, a protocol error, or the client's end of stream: close once every reply is out. */
    private boolean closing;

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
        node.counters.connectionsReceived.increment();
        node.counters.connections.increment();
    }

    static Behavior<Event> create(Connected connected, KvNode node, KvServer.Settings settings) {
        return Behaviors.<Object>setup(ctx -> Behaviors.withTimers(timers -> {
            connected.connection().tell(new Register(ctx.getSelf().narrow(), true));
            return new KvConnection(ctx, timers, connected, node, settings).behavior();
        })).narrow();
    }

    private Behavior<Object> behavior() {
        return Behaviors.receive(Object.class)
                .onMessage(Received.class, r -> {
                    received(r);
                    return Behaviors.same();
                })
                .onMessage(KvMessage.Answer.class, a -> {
                    answered(a);
                    return Behaviors.same();
                })
                .onMessageEquals(Flush.INSTANCE, () -> {
                    flushSent = false;
                    write();
                    return Behaviors.same();
                })
                .onMessageEquals(Tick.INSTANCE, () -> {
                    expireOld();
                    return Behaviors.same();
                })
                .onMessage(Ack.class, a -> {
                    writer.acknowledged(a);
                    return Behaviors.same();
                })
                .onMessage(CommandFailed.class, f -> {
                    ctx.getLog().debug("kv connection: {}", f.cause().getMessage());
                    closing = true; // a write the connection refused: the replies can no longer be kept in order
                    connection.tell(CloseCommand.ABORT);
                    return Behaviors.same();
                })
                .onMessage(PeerClosed.class, p -> {
                    closing = true; // the replies still go out
                    write();
                    return Behaviors.same();
                })
                .onMessage(ConnectionClosed.class, c -> Behaviors.stopped())
                .onSignal(PostStop.class, s -> {
                    node.counters.connections.decrement();
                    return Behaviors.same();
                })
                .build();
    }


    private void received(Received r) {
        if (closing) {
            return;
        }
        parser.feed(r.data());
        node.counters.inputBytes.add(r.data().size());
        RespParser.Outcome outcome;
        while (!closing && (outcome = parser.next()) != null) {
            if (outcome instanceof RespParser.Outcome.Command c) {
                command(c.args());
            } else {
                done(RespOut.errorReply("ERR " + ((RespParser.Outcome.ProtocolError) outcome).message()));
                closing = true;
            }
        }
        writer.holdReading(pending.size() >= settings.maxPending());
        write();
    }

    private static final byte[] FLUSHALL = "FLUSHALL".getBytes(StandardCharsets.US_ASCII);
    /** In the place of the key, where a shard's log looks for one (see {@link KvShardState#record}). */
    private static final byte[] SYNC = "SYNC".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEYSPACE = "KEYSPACE".getBytes(StandardCharsets.US_ASCII);

    private void command(List<byte[]> args) {
        node.counters.commands.increment();
        String command = KvShardState.ascii(args.get(0)).toUpperCase(Locale.ROOT);
        KvCommands.Spec spec = KvCommands.spec(command);
        if (spec == null) {
            done(KvCommands.unknown(args));
        } else if (!spec.arityOk(args.size()) || (command.equals("MSET") && args.size() % 2 == 0)) {
            done(KvCommands.wrongArity(command));
        } else if (command.equals("QUIT")) {
            done(RespOut.OK);
            closing = true;
        } else if (command.equals("INFO")) {
            info(args);
        } else {
            switch (spec.route()) {
                case CONNECTION -> done(KvCommands.answer(command, args, this));
                case ONE_KEY -> {
                    byte[][] request = args.toArray(new byte[command.equals("APPEND") ? 4 : args.size()][]);
                    request[0] = command.getBytes(StandardCharsets.US_ASCII);
                    if (command.equals("APPEND")) {
                        request[3] = Integer.toString(settings.limits().maxBulkLength())
                                .getBytes(StandardCharsets.US_ASCII);
                    }
                    send(slot(Kind.ONE, 1), 0, KvKey.shardOf(request[1], node.shards), request);
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
                                return;
                            }
                            request = new byte[][] {FLUSHALL, SYNC};
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
    }

    private void everyShard(Slot slot, byte[][] request) {
        for (int shard = 0; shard < node.shards; shard++) {
            send(slot, shard, shard, request);
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
        byte[] each = (mset ? "SET" : command.equals("MGET") ? "GET" : command).getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < keys; i++) {
            byte[] key = args.get(1 + i * step);
            byte[][] request = mset ? new byte[][] {each, key, args.get(2 + i * 2)} : new byte[][] {each, key};
            send(slot, i, KvKey.shardOf(key, node.shards), request);
        }
    }

    private Slot slot(Kind kind, int parts) {
        Slot slot = new Slot(kind, nextSeq, parts, System.nanoTime());
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
        }
    }

    /**
     * To the shard's actor directly when it runs on this node and nothing of this connection for that shard is
     * still on its way through the region (which would let this request overtake it); else through the region.
     */
    private void send(Slot slot, int index, int shard, byte[][] args) {
        long seq = slot.firstSeq + index;
        ActorRef<KvShard.Command> local = viaRegion[shard] == 0 ? node.localShard(shard) : null;
        KvMessage.Request request = new KvMessage.Request(shard, seq, args, self);
        if (local != null) {
            local.tell(request);
            node.counters.local.increment();
        } else {
            node.viaRegion(request);
            viaRegion[shard]++;
            node.counters.remote.increment();
        }
        pending.put(seq, new Pending(slot, index, shard, local == null));
    }

    private void answered(KvMessage.Answer a) {
        Pending p = pending.remove(a.seq());
        if (p == null) {
            return; // the command timed out before
        }
        if (p.viaRegion()) {
            viaRegion[p.shard()]--;
        }
        p.slot().parts[p.index()] = a.reply();
        if (--p.slot().missing == 0) {
            p.slot().reply = combine(p.slot());
        }
        if (!flushSent && slots.peek() == p.slot()) {
            flushSent = true;
            ctx.getSelf().tell(Flush.INSTANCE);
        }
        if (pending.size() < settings.maxPending() / 2) {
            writer.holdReading(false);
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
            case ARRAY -> {
                RespOut array = new RespOut().arrayHeader(slot.parts.length);
                for (byte[] part : slot.parts) {
                    array.raw(part);
                }
                yield array.toArray();
            }
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
            case DONE -> throw new IllegalStateException("a done slot has no answers");
        };
    }

    /** Moves the finished replies at the head of the queue out, and closes if that was the last of them. */
    private void write() {
        while (!slots.isEmpty() && slots.peek().reply != null) {
            out.raw(slots.poll().reply);
        }
        if (slots.isEmpty() && ticking) {
            ticking = false;
            timers.cancel(Tick.INSTANCE);
        }
        if (out.size() > 0) {
            node.counters.outputBytes.add(out.size());
            writer.write(out.take());
        }
        if (closing && slots.isEmpty()) {
            writer.closeWhenWritten();
        }
    }

    /** Answers the commands whose shards have not answered within the timeout with an error. */
    private void expireOld() {
        long now = System.nanoTime();
        for (Slot slot : slots) {
            if (now - slot.since < settings.requestTimeout().toNanos()) {
                break;
            }
            if (slot.reply == null) {
                for (int i = 0; i < slot.parts.length; i++) {
                    Pending p = pending.remove(slot.firstSeq + i);
                    if (p != null && p.viaRegion()) {
                        viaRegion[p.shard()]--;
                    }
                }
                slot.reply = slot.kind == Kind.CUSTOM ? slot.finish.apply(slot.parts) // INFO: without them
                        : RespOut.errorReply("TRYAGAIN no answer from the shard within %s (its node may be down)",
                        settings.requestTimeout());
            }
        }
        write();
        writer.holdReading(pending.size() >= settings.maxPending());
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
}
