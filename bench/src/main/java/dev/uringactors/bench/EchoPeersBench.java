package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Echo servers side by side, in one run, driven by the same client: ours, Netty's io_uring, epoll and NIO
 * transports, and Pekko Streams {@code Tcp}. This JVM (every server) is pinned to one core and the client to
 * the other. Server CPU per round trip is this process's CPU time over the client's measured window.
 */
final class EchoPeersBench {
    private static final Pattern RATE = Pattern.compile("roundtrips=(\\d+) rt_per_s=(\\d+)");

    private EchoPeersBench() {
    }

    record Result(String name, double roundTripsPerSecond, double cpuMicrosPerRoundTrip, double bytesPerRoundTrip) {
    }

    static void main(Args args) throws Exception {
        int conns = args.intValue("conns", 64);
        int seconds = args.intValue("seconds", 8);
        int warmup = args.intValue("warmup", 3);
        int bytes = args.intValue("bytes", 64);
        int serverCpu = args.intValue("server-cpu", 1);
        int clientCpu = args.intValue("client-cpu", 0);
        String client = args.string("client", "/tmp/uring-anchors/echo_client");
        boolean cClient = Files.isExecutable(Path.of(client));
        if (!cClient) {
            System.out.println("no C client at " + client + " (build it with bench/build-c.sh): using the "
                    + "Java client, whose figures compare only with each other");
        }
        boolean pinned = Pinning.pinThisProcess(serverCpu);
        String wait = args.string("wait", "interrupt");
        List<String> chosen = List.of(args.string("peers",
                "uring-actors,netty-io_uring,netty-epoll,netty-nio,pekko-streams-tcp").split(","));
        List<EchoPeer> peers = new ArrayList<>();
        for (EchoPeer peer : List.of(new UringEchoPeer(1, wait, "io-uring"),
                new UringEchoPeer(1, wait, "jdk"), NettyEchoPeer.ioUring(1), NettyEchoPeer.epoll(1),
                NettyEchoPeer.nio(1), new PekkoTcpEchoPeer())) {
            if (chosen.contains(peer.name())) {
                peers.add(peer);
            }
        }
        if (!chosen.contains("netty-io_uring")) {
            throw new IllegalArgumentException("--peers must include netty-io_uring, the baseline of the ratios");
        }
        Map<String, Result> results = new LinkedHashMap<>();
        FigureRecorder figures = args.figures("echo-peers");
        for (EchoPeer peer : peers) {
            int port = peer.start();
            try {
                Result r = measure(peer.name(), clientCommand(cClient, client, pinned, clientCpu, port, conns, warmup,
                        seconds, bytes), warmup, seconds);
                results.put(peer.name(), r);
                System.out.printf(Locale.ROOT, "echo %s conns=%d: %.0f rt/s, %.2f server-cpu-us/rt, %.0f B/rt "
                                + "allocated%n", r.name(), conns, r.roundTripsPerSecond(), r.cpuMicrosPerRoundTrip(),
                        r.bytesPerRoundTrip());
                figures.record(r.name(), "connections", conns, "round trips/s", r.roundTripsPerSecond());
                figures.record(r.name(), "connections", conns, "server CPU us/round trip", r.cpuMicrosPerRoundTrip());
            } finally {
                peer.stop();
            }
        }
        Result base = results.get("netty-io_uring");
        for (Result r : results.values()) {
            System.out.printf(Locale.ROOT, "ratio %s / netty-io_uring conns=%d: %.2fx rt/s, %.2fx server-cpu/rt, "
                            + "%.0f against %.0f B/rt%n", r.name(), conns,
                    r.roundTripsPerSecond() / base.roundTripsPerSecond(),
                    r.cpuMicrosPerRoundTrip() / base.cpuMicrosPerRoundTrip(), r.bytesPerRoundTrip(),
                    base.bytesPerRoundTrip());
        }
    }

    private static List<String> clientCommand(boolean cClient, String client, boolean pinned, int cpu, int port,
                                              int conns, int warmup, int seconds, int bytes) {
        List<String> cmd = new ArrayList<>();
        if (pinned) {
            cmd.addAll(List.of("taskset", "-c", String.valueOf(cpu)));
        }
        if (cClient) {
            cmd.add(client);
        } else {
            cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), EchoClient.class.getName()));
        }
        cmd.addAll(List.of(String.valueOf(port), String.valueOf(conns), String.valueOf(warmup),
                String.valueOf(seconds), String.valueOf(bytes)));
        return cmd;
    }

    private static Result measure(String name, List<String> command, int warmup, int seconds) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        // The bytes every thread of this JVM allocated: the server's, as the client runs in a process of its own.
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            long[] cpu = new long[2];
            long[] allocated = new long[2];
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            ScheduledFuture<?> from = timer.schedule(() -> {
                cpu[0] = os.getProcessCpuTime();
                allocated[0] = AllocatedBytes.total();
            }, warmup, TimeUnit.SECONDS);
            ScheduledFuture<?> to = timer.schedule(() -> {
                cpu[1] = os.getProcessCpuTime();
                allocated[1] = AllocatedBytes.total();
            }, (warmup + seconds) * 1000L, TimeUnit.MILLISECONDS);
            String out;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                out = r.lines().collect(Collectors.joining("\n"));
            }
            from.get();
            to.get();
            Matcher m = RATE.matcher(out);
            if (p.waitFor() != 0 || !m.find()) {
                throw new IllegalStateException("echo client failed against " + name + ": " + out);
            }
            long roundTrips = Long.parseLong(m.group(1));
            return new Result(name, Double.parseDouble(m.group(2)), (cpu[1] - cpu[0]) / 1e3 / roundTrips,
                    (double) (allocated[1] - allocated[0]) / roundTrips);
        } finally {
            timer.shutdownNow();
        }
    }
}
