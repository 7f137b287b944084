package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code kv} sample against redis-server, both pinned to CPU 1, with redis-benchmark on CPU 0: {@code -t set,get
 * -c 50 -r 100000 -d 16}, without pipelining and with {@code -P 16}. redis-server runs as a cache ({@code --save ''
 * --appendonly no}); with {@code --aof DIR} both append every write and fsync it before answering ({@code --aof DIR
 * --fsync always} against {@code --appendonly yes --appendfsync always}), in DIR (put it on the device to measure).
 * They run side by side and are measured alternately after the sample's JVM is warmed up; the last lines give the
 * medians. With {@code --nodes 3}, three kv nodes form a cluster on loopback (all on CPU 1: two cores cannot show
 * scaling), and one key is set and read through each node in turn: through the node that owns its shard it is
 * answered locally, through the two others it crosses the cluster, which gives a remote key's cost against a
 * local one's; then keys spread over all shards, through one node.
 */
final class KvBench {
    private static final Pattern CSV_ROW = Pattern.compile("^\"(SET|GET)\",\"([0-9.]+)\"", Pattern.MULTILINE);

    private KvBench() {
    }

    static void main(Args args) throws Exception {
        if (args.intValue("nodes", 1) == 3) {
            threeNodes(args);
            return;
        }
        int requests = args.intValue("requests", 500_000);
        int rounds = args.intValue("rounds", 3);
        String sampleJar = args.sampleJar();
        String aof = args.string("aof", "");
        String redisServer = HttpLoad.onPath("redis-server", "redis-server redis-tools");
        String redisBenchmark = HttpLoad.onPath("redis-benchmark", "redis-server redis-tools");
        boolean durable = !aof.isEmpty();
        Path dir = durable ? Files.createTempDirectory(Path.of(aof), "kv-bench") : Files.createTempDirectory("kv-bench");
        List<Process> started = new ArrayList<>();
        try {
            int redisPort = freePort();
            List<String> redis = new ArrayList<>(List.of("taskset", "-c", "1", redisServer, "--port",
                    String.valueOf(redisPort), "--bind", "127.0.0.1", "--save", "", "--dir",
                    Files.createDirectories(dir.resolve("redis")).toString()));
            redis.addAll(durable ? List.of("--appendonly", "yes", "--appendfsync", "always")
                    : List.of("--appendonly", "no"));
            Process redisProcess = HttpLoad.start(redis);
            started.add(redisProcess);
            List<String> kv = new ArrayList<>(List.of("taskset", "-c", "1", "java", "-jar", sampleJar, "kv",
                    "--port", "0"));
            if (durable) {
                kv.addAll(List.of("--aof", Files.createDirectories(dir.resolve("kv")).toString(), "--fsync",
                        "always"));
            }
            Process sample = HttpLoad.start(kv);
            started.add(sample);
            int kvPort = HttpLoad.listeningPort(sample);
            awaitPing(redisBenchmark, redisPort);
            System.out.printf("kv on port %d, redis-server on port %d (%s); %d rounds of %d requests%n", kvPort,
                    redisPort, durable ? "AOF, fsync always, in " + dir : "no persistence", rounds, requests);
            for (int pipeline : new int[] {1, 16}) { // the JIT's warm-up, on both paths
                run(redisBenchmark, kvPort, requests, pipeline, true);
            }
            FigureRecorder recorder = args.figures(durable ? "kv-aof" : "kv");
            for (int pipeline : durable ? new int[] {1} : new int[] {1, 16}) {
                double[][] figures = new double[4][rounds]; // set kv, set redis, get kv, get redis
                double[][] costs = new double[4][rounds]; // kv CPU, kv ring bytes, kv all bytes, redis CPU
                for (int r = 0; r < rounds; r++) {
                    ServerCost oursCost = ServerCost.ofJvm(sample.pid());
                    double[] ours = run(redisBenchmark, kvPort, requests, pipeline, true);
                    ServerCost.PerOperation oursPer = oursCost.per(2.0 * requests); // a SET and a GET run each
                    ServerCost theirsCost = ServerCost.ofNative(redisProcess.pid());
                    double[] theirs = run(redisBenchmark, redisPort, requests, pipeline, true);
                    ServerCost.PerOperation theirsPer = theirsCost.per(2.0 * requests);
                    costs[0][r] = oursPer.cpuMicros();
                    costs[1][r] = oursPer.ringBytes();
                    costs[2][r] = oursPer.allBytes();
                    costs[3][r] = theirsPer.cpuMicros();
                    figures[0][r] = ours[0];
                    figures[1][r] = theirs[0];
                    figures[2][r] = ours[1];
                    figures[3][r] = theirs[1];
                    System.out.printf(Locale.ROOT, "round %d -P %d: SET kv %.0f redis %.0f (%.2fx), "
                                    + "GET kv %.0f redis %.0f (%.2fx)%n", r + 1, pipeline, ours[0], theirs[0],
                            ours[0] / theirs[0], ours[1], theirs[1], ours[1] / theirs[1]);
                    System.out.printf("  a command: kv %s; redis-server %s%n", oursPer.describe(),
                            theirsPer.describe());
                }
                double[] medians = new double[4];
                for (int i = 0; i < 4; i++) {
                    medians[i] = HttpLoad.median(figures[i]);
                }
                System.out.printf(Locale.ROOT, "kv%s -c 50 -P %d: SET kv %.0f/s redis %.0f/s (%.2fx), "
                                + "GET kv %.0f/s redis %.0f/s (%.2fx)%n", durable ? " aof always" : "", pipeline,
                        medians[0], medians[1], medians[0] / medians[1], medians[2], medians[3],
                        medians[2] / medians[3]);
                System.out.printf(Locale.ROOT, "kv%s -c 50 -P %d, a command (medians): kv CPU %.2f us, %.0f B on "
                                + "the ring threads (%.0f B in all); redis-server CPU %.2f us%n",
                        durable ? " aof always" : "", pipeline, HttpLoad.median(costs[0]), HttpLoad.median(costs[1]),
                        HttpLoad.median(costs[2]), HttpLoad.median(costs[3]));
                recorder.record("uring-actors SET", "pipeline", pipeline, "requests/s", medians[0]);
                recorder.record("redis-server SET", "pipeline", pipeline, "requests/s", medians[1]);
                recorder.record("uring-actors GET", "pipeline", pipeline, "requests/s", medians[2]);
                recorder.record("redis-server GET", "pipeline", pipeline, "requests/s", medians[3]);
            }
        } finally {
            HttpLoad.stopAll(started);
        }
    }

    private static void threeNodes(Args args) throws Exception {
        int requests = args.intValue("requests", 100_000);
        String sampleJar = args.sampleJar();
        String redisBenchmark = HttpLoad.onPath("redis-benchmark", "redis-tools");
        String redisCli = HttpLoad.onPath("redis-cli", "redis-tools");
        int[] ports = new int[3];
        int[] artery = new int[3];
        for (int i = 0; i < 3; i++) {
            ports[i] = freePort();
            artery[i] = freePort();
        }
        String seeds = "127.0.0.1:" + artery[0] + ",127.0.0.1:" + artery[1];
        List<Process> started = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Process node = HttpLoad.start(List.of("taskset", "-c", "1", "java", "-jar", sampleJar, "kv",
                        "--port", String.valueOf(ports[i]), "--cluster", "127.0.0.1:" + artery[i], "--seeds", seeds));
                started.add(node);
                HttpLoad.listeningPort(node);
            }
            for (int port : ports) {
                awaitMembersUp(redisCli, port, 3);
            }
            System.out.printf("three kv nodes on ports %d, %d, %d; %d requests a run%n", ports[0], ports[1],
                    ports[2], requests);
            for (int port : ports) { // the JIT's warm-up on every node, and every shard started
                run(redisBenchmark, port, requests, 1, true);
            }
            FigureRecorder recorder = args.figures("kv-three-nodes");
            double[][] oneKey = new double[3][];
            for (int i = 0; i < 3; i++) {
                oneKey[i] = run(redisBenchmark, ports[i], requests, 1, false);
                System.out.printf(Locale.ROOT, "one key through node %d: SET %.0f/s GET %.0f/s%n", i + 1,
                        oneKey[i][0], oneKey[i][1]);
                recorder.record("SET one key", "node", i + 1, "requests/s", oneKey[i][0]);
                recorder.record("GET one key", "node", i + 1, "requests/s", oneKey[i][1]);
            }
            int owner = 0;
            for (int i = 1; i < 3; i++) {
                owner = oneKey[i][1] > oneKey[owner][1] ? i : owner;
            }
            double[] spread = run(redisBenchmark, ports[0], requests, 1, true);
            for (int i = 0; i < 3; i++) {
                if (i != owner) {
                    System.out.printf(Locale.ROOT, "kv three nodes: a remote key through node %d costs %.2fx a "
                                    + "local one's time (GET %.0f/s against %.0f/s through node %d, its owner)%n",
                            i + 1, oneKey[owner][1] / oneKey[i][1], oneKey[i][1], oneKey[owner][1], owner + 1);
                }
            }
            System.out.printf(Locale.ROOT, "kv three nodes, 100000 keys through node 1 (a third local): SET %.0f/s "
                    + "GET %.0f/s%n", spread[0], spread[1]);
            recorder.record("SET 100000 keys", "node", 1, "requests/s", spread[0]);
            recorder.record("GET 100000 keys", "node", 1, "requests/s", spread[1]);
        } finally {
            HttpLoad.stopAll(started);
        }
    }

    /** Waits (60 s at most) until the node on {@code port} sees {@code members} members up. */
    private static void awaitMembersUp(String redisCli, int port, int members) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            Process p = HttpLoad.start(List.of(redisCli, "-h", "127.0.0.1", "-p", String.valueOf(port), "INFO"));
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() == 0 && out.contains("cluster_members_up:" + members)) {
                return;
            }
            Thread.sleep(200); // a cluster forms in seconds; no result depends on this wait
        }
        throw new IllegalStateException("the kv node on port " + port + " did not see " + members + " members up");
    }

    /**
     * SET and GET requests/s of one redis-benchmark run on CPU 0, of 100000 keys ({@code spread}) or of one; an
     * error from the server fails it.
     */
    private static double[] run(String redisBenchmark, int port, int requests, int pipeline, boolean spread)
            throws Exception {
        List<String> command = new ArrayList<>(List.of("taskset", "-c", "0", redisBenchmark, "-h", "127.0.0.1",
                "-p", String.valueOf(port), "-t", "set,get", "-c", "50", "-n", String.valueOf(requests), "-d", "16",
                "-P", String.valueOf(pipeline), "--csv"));
        if (spread) {
            command.addAll(List.of("-r", "100000"));
        }
        Process p = HttpLoad.start(command);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        double[] rates = new double[2];
        Matcher m = CSV_ROW.matcher(out);
        int found = 0;
        while (m.find()) {
            rates[m.group(1).equals("SET") ? 0 : 1] = Double.parseDouble(m.group(2));
            found++;
        }
        if (p.waitFor() != 0 || found != 2 || out.contains("ERR")) {
            throw new IllegalStateException("redis-benchmark against port " + port + " failed: " + out);
        }
        return rates;
    }

    /** Waits (10 s at most) until redis-server answers. */
    private static void awaitPing(String redisBenchmark, int port) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            Process p = HttpLoad.start(List.of(redisBenchmark, "-h", "127.0.0.1", "-p", String.valueOf(port), "-t",
                    "ping", "-n", "1", "-c", "1", "-q"));
            p.getInputStream().readAllBytes();
            if (p.waitFor() == 0) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new IllegalStateException("redis-server on port " + port + " did not answer within 10 s");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
