package dev.uringactors.bench;

import dev.uringactors.actors.BatchScheduledWorkerThreads;
import dev.uringactors.bench.figures.FigureRecorder;
import dev.uringactors.bench.grpc.BenchEchoGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * gRPC unary calls served on the rings against the same service on Pekko HTTP's own TCP: each server is this jar's
 * {@code grpc-server} in its own JVM on CPU 1; grpc-java's client runs here, on CPU 0, with {@code --calls} calls
 * in flight on one HTTP/2 connection per server. The servers run side by side and are measured alternately after
 * a warm-up ({@code --warmup} seconds each; Pekko's transport still gains after 40), each run once both are
 * quiet (no JIT still compiling); each round says the server's CPU time a call too, and the last line gives the
 * medians and their ratios. grpc-java's client on its one core can be slower than
 * either server; {@code --client h2load} drives them with h2load instead ({@code -c16 -m32}: 512 calls in flight,
 * each a gRPC-framed POST of the same payload; h2load checks the HTTP status, one grpc-java call first checks the
 * answer). With {@code --collect-strict} both servers collect
 * a request entity that arrives whole within that many bytes before the handler sees it (Pekko HTTP's
 * {@code min-collect-strict-entity-size}), so that it reaches pekko-grpc whole instead of through a substream of
 * the connection (pekko-grpc's Java handler reads even a whole one through a stream of its own). With
 * {@code --common-pool batch} both servers' common pools take their threads from {@code BatchScheduledWorkerThreads}
 * (SCHED_BATCH: a worker woken on the server's one CPU does not take it from the thread that woke it).
 */
final class GrpcBench {
    private static final String[] TRANSPORTS = {"uring", "pekko"};

    private static final String BATCH_POOL_THREADS = "-Djava.util.concurrent.ForkJoinPool.common.threadFactory="
            + BatchScheduledWorkerThreads.class.getName();

    private GrpcBench() {
    }

    /** One bounded measuring run against server {@code i}: its calls per second. */
    private interface Calls {
        double perSecond(int i, int seconds) throws Exception;
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 6);
        int rounds = args.intValue("rounds", 3);
        int calls = args.intValue("calls", 64);
        int bytes = args.intValue("bytes", 64);
        int warmup = args.intValue("warmup", 20);
        int collectStrict = args.intValue("collect-strict", 0);
        String client = args.string("client", "grpc-java");
        boolean batchPool = switch (args.string("common-pool", "default")) {
            case "default" -> false;
            case "batch" -> true;
            default -> throw new IllegalArgumentException("--common-pool is default or batch");
        };
        if (!client.equals("grpc-java") && !client.equals("h2load")) {
            throw new IllegalArgumentException("--client " + client + ": grpc-java or h2load");
        }
        String h2load = client.equals("h2load") ? HttpLoad.onPath("h2load", "nghttp2-client") : null;
        if (seconds < 1 || rounds < 1 || calls < 1 || bytes < 0 || warmup < 0 || collectStrict < 0) {
            throw new IllegalArgumentException("--seconds, --rounds and --calls take 1 or more; --bytes, --warmup and"
                    + " --collect-strict 0 or more");
        }
        Pinning.pinThisProcess(0);
        String jar = Path.of(GrpcBench.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        List<Process> started = new ArrayList<>();
        List<ManagedChannel> channels = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        Path body = Files.write(Files.createTempFile("grpc-call", ".bin"), UnaryCallLoop.frame(bytes));
        try {
            for (String transport : TRANSPORTS) {
                List<String> command = new ArrayList<>(List.of("taskset", "-c", "1", "java", HttpLoad.COMMON_POOL_OF_TWO,
                        "-Dpekko.http.server.http2.min-collect-strict-entity-size=" + collectStrict));
                if (batchPool) {
                    command.add(BATCH_POOL_THREADS);
                }
                command.addAll(List.of("-cp", jar, Main.class.getName(), "grpc-server", "--transport", transport));
                Process server = HttpLoad.start(command);
                started.add(server);
                ports.add(HttpLoad.listeningPort(server));
                channels.add(Grpc.newChannelBuilderForAddress("127.0.0.1", ports.get(ports.size() - 1),
                        InsecureChannelCredentials.create()).build());
            }
            String[] urls = new String[TRANSPORTS.length];
            for (int i = 0; i < TRANSPORTS.length; i++) {
                UnaryCallLoop.checkOneCall(TRANSPORTS[i], channels.get(i), bytes);
                urls[i] = "http://127.0.0.1:" + ports.get(i) + "/" + BenchEchoGrpc.getEchoMethod().getFullMethodName();
            }
            String inFlight = h2load != null ? "512 (h2load -c16 -m32)" : String.valueOf(calls);
            System.out.printf("grpc unary, %s calls in flight, %d-byte payloads, min-collect-strict-entity-size %d,"
                    + " common pool %s; %d rounds of %d s%n", inFlight, bytes, collectStrict,
                    batchPool ? "batch" : "default", rounds, seconds);
            System.out.println("both servers run with " + HttpLoad.COMMON_POOL_OF_TWO + ": pekko-grpc's Java API"
                    + " starts a thread per callback without it on a JVM pinned to one CPU, and has no way around it");
            Calls run = (i, secs) -> h2load != null
                    ? HttpLoad.h2load(h2load, urls[i], secs, List.of("-d", body.toString(), "-H",
                            "content-type: application/grpc", "-H", "te: trailers"))
                    : UnaryCallLoop.callsPerSecond(TRANSPORTS[i], channels.get(i), calls, bytes, secs);
            for (int i = 0; i < TRANSPORTS.length; i++) { // the JIT's warm-up, on both sides
                run.perSecond(i, Math.max(1, warmup));
            }
            HttpLoad.SideBySide medians = HttpLoad.inTurn(started, rounds, seconds, "calls/s", "call",
                    server -> run.perSecond(server, seconds));
            System.out.println("grpc unary " + (h2load != null ? "h2load c16 m32" : "c" + calls) + ": "
                    + medians.summary("calls/s", "call"));
            FigureRecorder recorder = args.figures((collectStrict > 0 ? "grpc-unary-collect-strict" : "grpc-unary")
                    + (batchPool ? "-batch-pool" : "") + (h2load != null ? "-h2load" : ""));
            int x = h2load != null ? 512 : calls;
            recorder.record("uring-actors", "calls in flight", x, "calls/s", medians.ours());
            recorder.record("pekko-tcp", "calls in flight", x, "calls/s", medians.pekko());
        } finally {
            for (ManagedChannel channel : channels) {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
            HttpLoad.stopAll(started);
            Files.delete(body);
        }
    }
}
