package dev.uringactors.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ListenerCommand;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The kv sample: a Redis-protocol (RESP2) key-value server on the rings, its keys in {@code samples.kv.shards}
 * shards spread over a Pekko cluster by Cluster Sharding. Alone (no seed nodes configured), the node forms a
 * cluster of its own.
 */
final class KvServer {
    /** The server's settings: {@code samples.kv} and what the command line said. */
    record Settings(RespLimits limits, int shards, Duration requestTimeout, int maxPending, long replyBudget,
                    boolean closeOverBudget, int port,
                    Optional<Path> aof, KvAppendLog.Fsync fsync, long aofRewriteSize, Optional<Duration> statsEvery) {
        static Settings from(Config config, int port, Optional<Path> aof, KvAppendLog.Fsync fsync,
                             Optional<Duration> statsEvery) {
            Config kv = config.getConfig("samples.kv");
            int shards = kv.getInt("shards");
            if (shards < 1 || shards > 4096) {
                throw new ConfigException.BadValue("samples.kv.shards", "1 to 4096, not " + shards);
            }
            Duration timeout = kv.getDuration("request-timeout");
            if (timeout.toMillis() < 100) {
                throw new ConfigException.BadValue("samples.kv.request-timeout",
                        "at least 100ms, not " + timeout);
            }
            int maxPending = kv.getInt("max-pending");
            if (maxPending < 1) {
                throw new ConfigException.BadValue("samples.kv.max-pending",
                        "must be positive, not " + maxPending);
            }
            long replyBudget = kv.getBytes("reply-budget");
            if (replyBudget < 64 * 1024) { // above the writer's acknowledgement interval, so that one is always due
                throw new ConfigException.BadValue("samples.kv.reply-budget", "at least 64 KiB, not " + replyBudget);
            }
            String overBudget = kv.getString("over-budget");
            if (!overBudget.equals("pause") && !overBudget.equals("close")) {
                throw new ConfigException.BadValue("samples.kv.over-budget", "pause or close, not " + overBudget);
            }
            long rewriteSize = kv.getBytes("aof-rewrite-size");
            if (rewriteSize < 1) {
                throw new ConfigException.BadValue("samples.kv.aof-rewrite-size", "must be positive");
            }
            return new Settings(RespLimits.from(config), shards, timeout, maxPending, replyBudget,
                    overBudget.equals("close"), port, aof, fsync, rewriteSize, statsEvery);
        }
    }

    private KvServer() {
    }

    static Behavior<Event> create(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound,
                                  Settings settings) {
        return create(address, bound, settings, node -> { });
    }

    /** As above; {@code started} gets the node's part of the store (its counters, for tests). */
    static Behavior<Event> create(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound,
                                  Settings settings, Consumer<KvNode> started) {
        return Behaviors.setup(ctx -> {
            Cluster cluster = Cluster.get(ctx.getSystem());
            if (ctx.getSystem().settings().config().getStringList("pekko.cluster.seed-nodes").isEmpty()) {
                cluster.manager().tell(Join.create(cluster.selfMember().address())); // a cluster of one
            }
            KvNode node = KvNode.start(ctx.getSystem(), settings);
            started.accept(node);
            settings.statsEvery().ifPresent(every -> {
                KvStatsLine lines = new KvStatsLine(node.counters);
                ctx.getSystem().scheduler().scheduleAtFixedRate(every, every,
                        () -> System.out.println(lines.next(System.nanoTime())), ctx.getSystem().executionContext());
            });
            CompletableFuture<ActorRef<ListenerCommand>> listener = new CompletableFuture<>();
            ActorRef<KvClients.Command> clients = ctx.spawn(KvClients.create(listener), "clients");
            return TcpServer.bind(address, bound, listener::complete, connected -> Behaviors.setup(c -> {
                clients.tell(new KvClients.Opened(c.getSelf())); // to be finished at shutdown
                return KvConnection.create(connected, node, settings);
            }));
        });
    }
}
