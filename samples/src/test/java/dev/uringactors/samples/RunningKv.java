package dev.uringactors.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import redis.clients.jedis.Jedis;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A kv node of its own (a cluster of one) on two rings and a loopback port, for the length of a test class. */
final class RunningKv implements AutoCloseable {
    final InetSocketAddress address;
    final KvNode node;
    private final ActorTestKit testKit;

    private RunningKv(ActorTestKit testKit, InetSocketAddress address, KvNode node) {
        this.testKit = testKit;
        this.address = address;
        this.node = node;
    }

    /** With {@code config} (HOCON) over the sample's settings. */
    static RunningKv start(String config) throws Exception {
        return start(config, Optional.empty(), KvAppendLog.Fsync.NO);
    }

    /** As {@link #start(String)}, its shards logging their writes in {@code aof}. */
    static RunningKv start(String config, Optional<Path> aof, KvAppendLog.Fsync fsync) throws Exception {
        RunningKv kv = launch(config, aof, fsync);
        try (Jedis jedis = kv.client()) {
            jedis.dbSize(); // every shard started: the cluster is up
        }
        return kv;
    }

    /**
     * As {@link #start(String)}, but returns once the node listens, before any shard has started: for a node of
     * a cluster of several, whose shards are to be spread once every node is up.
     */
    static RunningKv launch(String config) throws Exception {
        return launch(config, Optional.empty(), KvAppendLog.Fsync.NO);
    }

    private static RunningKv launch(String config, Optional<Path> aof, KvAppendLog.Fsync fsync) throws Exception {
        Config c = ConfigFactory.parseString(config).withFallback(ConfigFactory.parseString("uring.rings = 2"))
                .withFallback(ConfigFactory.parseResources(Main.class, "kv-cluster.conf"))
                .withFallback(ConfigFactory.load()).resolve();
        ActorTestKit testKit = ActorTestKit.create("kv", c);
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<KvNode> node = new CompletableFuture<>();
        testKit.spawn(KvServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), bound,
                KvServer.Settings.from(c, 0, aof, fsync, Optional.empty()), node::complete), "kv");
        return new RunningKv(testKit, bound.get(30, TimeUnit.SECONDS), node.get(30, TimeUnit.SECONDS));
    }

    /** A Jedis client with a timeout that a loaded machine does not reach. */
    Jedis client() {
        return new Jedis(address.getHostString(), address.getPort(), 30_000);
    }

    @Override
    public void close() {
        testKit.shutdownTestKit();
    }
}
