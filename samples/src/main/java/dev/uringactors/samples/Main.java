package dev.uringactors.samples;

import dev.uringactors.actors.TcpProtocol;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.ring.Probe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.slf4j.LoggerFactory;
import dev.uringactors.ring.UringException;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** {@code java -jar samples/target/uring-samples.jar <sample> [args]}. */
public final class Main {
    private static final String USAGE = """
            usage: java -jar samples/target/uring-samples.jar <sample> [args]
              probe                    what this kernel's io_uring supports
              copy SOURCE TARGET       copy a file through one ring (queue depth 32, 128 KiB blocks)
              echo [--port P] [--host H]   echo server (default 127.0.0.1:7007); Ctrl-C stops it
              http [--port P] [--host H]   HTTP/1.1 hello-world server (default 127.0.0.1:8080)
            Servers take their tuning from HOCON: -Dconfig.file=my.conf, or application.conf on the class path.
            """;

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        LoggerFactory.getILoggerFactory(); // before Pekko's threads log, so SLF4J need not replay their lines
        String sample = args.length > 0 ? args[0] : "";
        try {
            switch (sample) {
                case "probe" -> System.out.print(Probe.run().report());
                case "copy" -> copy(args);
                case "echo" -> serve("echo", args, 7007, EchoServer::create);
                case "http" -> serve("http", args, 8080, HttpServer::create);
                default -> usage();
            }
        } catch (UringException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(1);
        }
    }

    /** Runs a server until Ctrl-C (Pekko's CoordinatedShutdown closes the rings on the JVM's shutdown hook). */
    private static void serve(String name, String[] args, int defaultPort, ServerFactory factory) throws Exception {
        String host = option(args, "--host", "127.0.0.1");
        int port = Integer.parseInt(option(args, "--port", String.valueOf(defaultPort)));
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        ActorSystem<TcpProtocol.Event> system = ActorSystem.create(
                factory.create(new InetSocketAddress(host, port), bound), "uring-" + name);
        try {
            InetSocketAddress address = bound.get(30, TimeUnit.SECONDS);
            int rings = UringExtension.get(system).ringCount();
            System.out.printf("%s server listening on %s:%d (%d ring%s, wait strategy %s); Ctrl-C stops it%n",
                    name, address.getAddress().getHostAddress(), address.getPort(), rings, rings == 1 ? "" : "s",
                    UringExtension.get(system).settings().waitStrategy().name().toLowerCase(Locale.ROOT));
        } catch (ExecutionException e) {
            system.terminate();
            throw e.getCause() instanceof UringException u ? u : e;
        }
        // Ctrl-C: Pekko's shutdown hook runs CoordinatedShutdown (which closes the rings); this one reports it.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            system.getWhenTerminated().toCompletableFuture().join();
            System.out.println(name + " server stopped");
        }));
        system.getWhenTerminated().toCompletableFuture().join();
    }

    interface ServerFactory {
        Behavior<TcpProtocol.Event> create(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound);
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 1; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    private static void copy(String[] args) throws Exception {
        if (args.length != 3) {
            usage();
        }
        Path source = Path.of(args[1]);
        Path target = Path.of(args[2]);
        long start = System.nanoTime();
        long bytes = FileCopy.copy(source, target);
        double seconds = (System.nanoTime() - start) / 1e9;
        String a = sha256(source);
        String b = sha256(target);
        System.out.printf(Locale.ROOT, "copied %d bytes from %s to %s in %.1f ms (%.1f MiB/s) through io_uring%n",
                bytes, source, target, seconds * 1e3, bytes / seconds / (1 << 20));
        System.out.println("sha-256 " + a + (a.equals(b) ? " (source and copy match)" : " != " + b + " MISMATCH"));
        if (!a.equals(b)) {
            System.exit(1);
        }
    }

    private static String sha256(Path file) throws IOException, java.security.NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) > 0; ) {
                digest.update(chunk, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void usage() {
        System.err.print(USAGE);
        System.exit(2);
    }
}
