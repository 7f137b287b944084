package dev.uringactors.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.Backend;
import dev.uringactors.actors.BackendChoice;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.Probe;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code java -jar samples/target/uring-samples.jar <sample> [args]}. Exit status: 0 done, 1 failed (one line
 * on standard error says what, and how to fix it where that is known), 2 wrong arguments (with the usage).
 */
public final class Main {
    private static final String USAGE = """
            usage: java -jar samples/target/uring-samples.jar <sample> [args]
              probe                    what this kernel's io_uring supports (exit 1 if it has none), and which
                                       backend uring.backend = auto would choose with the settings, and why
              copy SOURCE TARGET       copy a regular file through one ring, checked by SHA-256; the target
                                       takes the copy only once it matches (holes of a sparse file are filled).
                                       It replaces only a regular file (through a symbolic link: the file it
                                       leads to), never a device, a FIFO or a directory
              echo [--port P] [--host H]   echo server (default 127.0.0.1:7007); Ctrl-C stops it
              http [--port P] [--host H]   HTTP/1.1 hello-world server (default 127.0.0.1:8080)
              files --root DIR [--port P] [--host H]
                                       static file server for the files beneath DIR (default 127.0.0.1:8080)
              pekko-http [--port P] [--host H] [--transport uring|pekko] [--root DIR]
                                       a Pekko HTTP route set (hello at /, JSON echo at /echo, the files
                                       directly in DIR at /files/NAME) on the rings, or on Pekko's own TCP
              proxy --upstream HOST:PORT [--port P] [--host H] [--transport uring|pekko]
                                       a reverse proxy (default 127.0.0.1:8080): each request goes on to the
                                       upstream through Pekko HTTP's connection pool, on the rings as server
                                       and client, or on Pekko's own TCP; 502/504 when the upstream fails
              kv [--port P] [--host H] [--aof DIR [--fsync always|everysec|no]]
                 [--cluster HOST:PORT [--seeds HOST:PORT,...]]
                                       Redis-protocol key-value server (default 127.0.0.1:6379), its keys
                                       sharded over a Pekko cluster (alone: a cluster of one). Without --aof
                                       it is a cache: a node's keys die with it. With --aof, each shard logs
                                       its writes in DIR (shared by the nodes) and replays them when it starts
            Servers take their tuning from HOCON: -Dconfig.file=my.conf, or application.conf on the class path.
            With --stats 5s a server prints each ring's counters every 5 s. With --backend auto|io-uring|jdk a
            server runs on that backend (uring.backend): auto takes io_uring where the kernel allows it, else the
            JDK's I/O with one warning that says why; io-uring fails at once where it cannot run.
            """;
    /** How long a server may take to bind before its start counts as failed. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    /** What a stopping server may take beyond uring.shutdown-timeout before the process is halted. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private Main() {
    }

    public static void main(String[] args) {
        LoggerFactory.getILoggerFactory(); // before Pekko's threads log, so SLF4J need not replay their lines
        int status = run(args);
        if (status != 0) {
            System.exit(status); // also past threads that a failed start left behind
        }
    }

    /** Runs a sample; returns the exit status. A server returns when it has stopped. */
    static int run(String[] args) {
        return run(args, system -> { });
    }

    /** As {@link #run(String[])}; a server's actor system is handed to {@code started} once it listens. */
    static int run(String[] args, Consumer<ActorSystem<?>> started) {
        String sample = args.length > 0 ? args[0] : "";
        try {
            return switch (sample) {
                case "probe" -> probe();
                case "copy" -> copy(args);
                case "echo" -> serve("echo server", args, 7007, EchoServer::create, Main::ringsAndWait, started);
                case "http" -> serve("http server", args, 8080, HttpServer::create, Main::ringsAndWait, started);
                case "files" -> files(args, started);
                case "pekko-http" -> pekkoHttp(args, started);
                case "kv" -> kv(args, started);
                case "proxy" -> proxy(args, started);
                default -> throw new UsageException(sample.isEmpty() ? "which sample?" : "no sample " + sample);
            };
        } catch (UsageException e) {
            System.err.print("error: " + e.getMessage() + "\n" + USAGE);
            return 2;
        } catch (UringException | CopyRefusedException | IOException | ConfigException e) {
            System.err.println("error: " + e.getMessage());
            return 1;
        }
    }

    /** Wrong arguments: answered with the usage. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }

    private static int probe() {
        Probe probe = Probe.run();
        System.out.print(probe.report());
        BackendChoice auto = BackendChoice.probe(UringSettings.load());
        System.out.println("uring.backend = auto would run: " + auto.backend().settingValue() + " (" + auto.reason()
                + ")");
        return probe.available() ? 0 : 1;
    }

    /**
     * Runs a server until Ctrl-C or SIGTERM. Everything that can be checked before the actor system starts is:
     * the arguments, the settings, and a ring of the configured kind. If the server has not stopped within
     * {@code uring.shutdown-timeout} and a grace after the signal (a handler stuck in a loop, say), the process
     * is halted, with the stacks of the ring threads in the log.
     */
    private static int serve(String title, String[] args, int defaultPort, ServerFactory factory,
                             Function<ActorSystem<?>, String> details, Consumer<ActorSystem<?>> started) {
        return serve(title, "uring-" + title.replace(' ', '-'), ConfigFactory::load, args, defaultPort, factory,
                details, started);
    }

    /**
     * As above, the actor system named {@code systemName} and made with the settings {@code settingsLoader} loads
     * once the arguments are checked.
     */
    private static int serve(String title, String systemName, Supplier<Config> settingsLoader, String[] args,
                             int defaultPort, ServerFactory factory, Function<ActorSystem<?>, String> details,
                             Consumer<ActorSystem<?>> started) {
        InetSocketAddress address = address(option(args, "--host", "127.0.0.1"),
                option(args, "--port", String.valueOf(defaultPort)));
        Duration statsEvery = statsInterval(option(args, "--stats", null));
        String backend = backendOption(option(args, "--backend", null));
        Config config = withBackend(backend, settingsLoader.get());
        UringSettings settings = UringSettings.from(config); // a bad setting fails here, naming its path
        if (settings.backend() == UringSettings.BackendMode.IO_URING) {
            try (Ring ring = Ring.open(settings.ringOptions(0))) {
                // io_uring disabled, blocked by seccomp, or a setting the kernel refuses: said now, not by a timeout
            }
        }
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        ActorSystem<TcpProtocol.Event> system = ActorSystem.create(factory.create(address, bound), systemName,
                config);
        system.getWhenTerminated().thenRun(() -> bound.completeExceptionally(
                new IllegalStateException("the server stopped while starting")));
        try {
            InetSocketAddress listening = bound.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            System.out.printf("%s listening on %s:%d %s%n", title, listening.getAddress().getHostAddress(),
                    listening.getPort(), details.apply(system));
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            system.terminate();
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            System.err.println("error: " + title + " did not start: " + (cause instanceof TimeoutException
                    ? "not bound within " + START_TIMEOUT : cause.getMessage()));
            return 1;
        }
        Duration deadline = settings.shutdownTimeout().plus(STOP_GRACE);
        // Pekko's shutdown hook runs CoordinatedShutdown (which closes the rings); this one reports it, or halts.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopOrHalt(title, system, deadline)));
        if (statsEvery != null) {
            printStats(system, statsEvery);
        }
        started.accept(system);
        system.getWhenTerminated().toCompletableFuture().join();
        return 0;
    }

    /** {@code --backend}'s value, checked (null where it is not given). */
    private static String backendOption(String backend) {
        if (backend != null && !backend.equals("auto") && !backend.equals("io-uring") && !backend.equals("jdk")) {
            throw new UsageException("--backend " + backend + ": auto, io-uring or jdk");
        }
        return backend;
    }

    /** {@code config} with {@code uring.backend} as {@code --backend} gives it (null: as it is). */
    private static Config withBackend(String backend, Config config) {
        return backend == null ? config : ConfigFactory.parseString("uring.backend = " + backend).withFallback(config);
    }

    /** What the echo and http servers say of themselves once they listen. */
    private static String ringsAndWait(ActorSystem<?> system) {
        UringExtension uring = UringExtension.get(system);
        return "(" + rings(system) + (uring.backend() == Backend.JDK ? "" : ", wait strategy "
                + uring.settings().waitStrategy().name().toLowerCase(Locale.ROOT)) + "); Ctrl-C stops it";
    }

    /** The rings, or that there are none: the JDK backend runs. */
    private static String rings(ActorSystem<?> system) {
        UringExtension uring = UringExtension.get(system);
        int rings = uring.ringCount();
        return uring.backend() == Backend.JDK ? "JDK backend, no ring"
                : rings + " ring" + (rings == 1 ? "" : "s");
    }

    /** The static file server: its root must be a directory, checked before anything starts. */
    private static int files(String[] args, Consumer<ActorSystem<?>> started) {
        String rootOption = option(args, "--root", null);
        if (rootOption == null) {
            throw new UsageException("files needs --root DIR");
        }
        Path root = Path.of(rootOption).toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            throw new UsageException("--root " + rootOption + ": not a directory");
        }
        return serve("file server", args, 8080, (address, bound) -> FileServer.create(address, bound, root),
                system -> "(root " + root + ", " + rings(system) + ")", started);
    }

    /** The Pekko HTTP routes on the transport named; {@code --root}, if given, must be a directory. */
    private static int pekkoHttp(String[] args, Consumer<ActorSystem<?>> started) throws IOException {
        String transportOption = option(args, "--transport", "uring");
        PekkoHttpServer.Transport transport = switch (transportOption) {
            case "uring" -> PekkoHttpServer.Transport.URING;
            case "pekko" -> PekkoHttpServer.Transport.PEKKO;
            default -> throw new UsageException("--transport " + transportOption + ": uring or pekko");
        };
        String rootOption = option(args, "--root", null);
        Optional<Path> root = Optional.empty();
        if (rootOption != null) {
            if (!Files.isDirectory(Path.of(rootOption))) {
                throw new UsageException("--root " + rootOption + ": not a directory");
            }
            root = Optional.of(JavaFileCall.run("realpath " + rootOption, () -> Path.of(rootOption).toRealPath()));
        }
        Optional<Path> files = root;
        return serve("pekko-http", args, 8080, (address, bound) -> PekkoHttpServer.create(address, bound, transport,
                files), system -> "(transport " + transportOption + (UringExtension.get(system).backend() == Backend.JDK
                        && transport == PekkoHttpServer.Transport.URING ? ", JDK backend: over Pekko IO" : "")
                + ")", started);
    }

    /** The reverse proxy: {@code --upstream} is needed, as HOST:PORT. */
    private static int proxy(String[] args, Consumer<ActorSystem<?>> started) {
        String upstreamOption = option(args, "--upstream", null);
        if (upstreamOption == null) {
            throw new UsageException("proxy needs --upstream HOST:PORT");
        }
        InetSocketAddress upstream = hostPort("--upstream", upstreamOption);
        String transportOption = option(args, "--transport", "uring");
        ProxyServer.Transport transport = switch (transportOption) {
            case "uring" -> ProxyServer.Transport.URING;
            case "pekko" -> ProxyServer.Transport.PEKKO;
            default -> throw new UsageException("--transport " + transportOption + ": uring or pekko");
        };
        return serve("proxy", args, 8080, (address, bound) -> ProxyServer.create(address, bound, transport, upstream),
                system -> "(upstream " + upstreamOption + ", transport " + transportOption + ", " + rings(system)
                        + "); Ctrl-C stops it", started);
    }

    /**
     * The kv server: its cluster settings made from the arguments, over the user's settings, over the sample's
     * cluster defaults ({@code kv-cluster.conf}); {@code --aof} must name a directory.
     */
    private static int kv(String[] args, Consumer<ActorSystem<?>> started) {
        String aof = option(args, "--aof", null);
        if (aof != null && !Files.isDirectory(Path.of(aof))) {
            throw new UsageException("--aof " + aof + ": not a directory");
        }
        String fsync = option(args, "--fsync", aof == null ? "no" : "everysec");
        if (!fsync.equals("always") && !fsync.equals("everysec") && !fsync.equals("no")) {
            throw new UsageException("--fsync " + fsync + ": always, everysec or no");
        }
        if (aof == null && option(args, "--fsync", null) != null) {
            throw new UsageException("--fsync goes with --aof DIR");
        }
        String self = option(args, "--cluster", null);
        String seeds = option(args, "--seeds", null);
        if (self == null && seeds != null) {
            throw new UsageException("--seeds goes with --cluster HOST:PORT");
        }
        StringBuilder overrides = new StringBuilder();
        if (self != null) {
            InetSocketAddress artery = hostPort("--cluster", self);
            overrides.append("pekko.remote.artery.canonical.hostname = \"").append(artery.getHostString())
                    .append("\"\npekko.remote.artery.canonical.port = ").append(artery.getPort())
                    .append("\npekko.cluster.seed-nodes = [");
            for (String seed : (seeds == null ? self : seeds).split(",")) {
                InetSocketAddress s = hostPort("--seeds", seed.trim());
                overrides.append("\"pekko://kv@").append(s.getHostString()).append(':').append(s.getPort())
                        .append("\",");
            }
            overrides.append("]\n");
        }
        int port = address("127.0.0.1", option(args, "--port", "6379")).getPort();
        Optional<Duration> statsEvery = Optional.ofNullable(statsInterval(option(args, "--stats", null)));
        Config config = ConfigFactory.parseString(overrides.toString())
                .withFallback(ConfigFactory.defaultOverrides())
                .withFallback(ConfigFactory.defaultApplication())
                .withFallback(ConfigFactory.parseResources(Main.class, "kv-cluster.conf"))
                .withFallback(ConfigFactory.defaultReference()).resolve();
        KvServer.Settings kv = KvServer.Settings.from(config, port, Optional.ofNullable(aof).map(Path::of),
                KvAppendLog.Fsync.valueOf(fsync.toUpperCase(Locale.ROOT)), statsEvery);
        return serve("kv", "kv", () -> config, args, 6379, (address, bound) -> KvServer.create(address, bound, kv),
                system -> "(node " + Cluster.get(system).selfMember().address() + ", " + rings(system)
                        + ", " + kv.shards() + " shards, " + (aof == null ? "a cache: no --aof"
                        : "append-only files in " + aof + ", fsync " + fsync) + "); Ctrl-C stops it", started);
    }

    private static InetSocketAddress hostPort(String option, String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || !value.substring(colon + 1).matches("[0-9]{1,5}")) {
            throw new UsageException(option + " " + value + ": not HOST:PORT");
        }
        return address(value.substring(0, colon), value.substring(colon + 1));
    }

    private static Duration statsInterval(String value) {
        if (value == null) {
            return null;
        }
        try {
            Duration every = ConfigFactory.parseString("d = \"" + value + "\"").getDuration("d");
            if (every.toMillis() >= 10) {
                return every;
            }
        } catch (ConfigException e) {
            // answered below
        }
        throw new UsageException("--stats " + value + ": not an interval of 10ms or more, such as 5s");
    }

    /** Prints a {@link StatsLine} every {@code every}, from the system's scheduler, until the system stops. */
    private static void printStats(ActorSystem<?> system, Duration every) {
        StatsLine lines = new StatsLine(UringExtension.get(system).backend());
        UringExtension uring = UringExtension.get(system);
        system.scheduler().scheduleAtFixedRate(every, every, () -> {
            uring.stats().thenAccept(stats -> System.out.println(lines.next(stats, System.nanoTime())));
            uring.sqPollStats().thenAccept(threads -> threads.forEach(t -> System.out.println(StatsLine.of(t))));
        }, system.executionContext());
    }

    private static void stopOrHalt(String title, ActorSystem<?> system, Duration deadline) {
        try {
            system.getWhenTerminated().toCompletableFuture().get(deadline.toMillis(), TimeUnit.MILLISECONDS);
            System.out.println(title + " stopped");
        } catch (TimeoutException | ExecutionException | InterruptedException e) {
            System.err.println("error: " + title + " did not stop within " + deadline + "; halting. Ring threads:");
            for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
                if (t.getKey().getName().startsWith("uring-ring-")) {
                    System.err.println("  " + t.getKey().getName() + " (" + t.getKey().getState() + ")");
                    for (StackTraceElement frame : t.getValue()) {
                        System.err.println("    at " + frame);
                    }
                }
            }
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
    }

    interface ServerFactory {
        Behavior<TcpProtocol.Event> create(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound);
    }

    private static InetSocketAddress address(String host, String port) {
        int number;
        try {
            number = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new UsageException("--port " + port + ": not a number");
        }
        if (number < 0 || number > 65535) {
            throw new UsageException("--port " + port + ": not a port (0 to 65535)");
        }
        InetSocketAddress address = new InetSocketAddress(host, number);
        if (address.isUnresolved()) {
            throw new UsageException("--host " + host + ": no such host");
        }
        return address;
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals(name)) {
                if (i + 1 == args.length) {
                    throw new UsageException(name + " needs a value");
                }
                return args[i + 1];
            }
        }
        return fallback;
    }

    private static int copy(String[] args) throws IOException {
        if (args.length != 3) {
            throw new UsageException("copy takes SOURCE and TARGET");
        }
        if (args[1].isEmpty() || args[2].isEmpty()) {
            throw new UsageException("copy takes SOURCE and TARGET, not an empty path");
        }
        Path source = Path.of(args[1]);
        Path target = Path.of(args[2]);
        long start = System.nanoTime();
        FileCopy.Result copied = FileCopy.copy(source, target);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "copied %d bytes from %s to %s in %.1f ms (%.1f MiB/s) through io_uring%n",
                copied.bytes(), source, target, seconds * 1e3, copied.bytes() / seconds / (1 << 20));
        System.out.println("sha-256 " + copied.sha256() + " (source and copy match)");
        return 0;
    }
}
