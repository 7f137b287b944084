package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Pekko HTTP's client on the rings' transport against the same client on Pekko's own: {@code singleRequest}
 * through a pool of {@code --connections} (64) with {@code --concurrency} (128) requests in flight, {@code GET /}
 * of the {@code http} sample (a 13-byte hello, on the rings) pinned to CPU 1. The two clients are JVMs of their
 * own, both pinned to CPU 0, warmed up ({@code --warmup} seconds each), then measured in turn, each once both are
 * quiet; a round gives each client's responses a second, its CPU time a response, and how busy the upstream's
 * CPU was (near 100%: the upstream, not the client, set the rate). With {@code --backend jdk} the rings' client
 * runs on the JDK backend, this library's connections over Pekko IO.
 */
final class HttpClientBench {
    private HttpClientBench() {
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 6);
        int rounds = args.intValue("rounds", 3);
        int warmup = args.intValue("warmup", 20);
        int connections = args.intValue("connections", 64);
        int concurrency = args.intValue("concurrency", 128);
        String sampleJar = args.sampleJar();
        String backend = args.string("backend", "io-uring");
        String benchJar = Path.of(HttpClientBench.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        List<Process> started = new ArrayList<>();
        try {
            Process upstream = HttpLoad.start(List.of("taskset", "-c", "1", "java", "-jar", sampleJar, "http",
                    "--port", "0"));
            started.add(upstream);
            String url = "http://127.0.0.1:" + HttpLoad.listeningPort(upstream) + "/";
            List<Client> clients = new ArrayList<>();
            List<Process> clientProcesses = new ArrayList<>();
            for (String transport : new String[] {"uring", "pekko"}) {
                Process p = HttpLoad.start(List.of("taskset", "-c", "0", "java",
                        "-During.backend=" + backend, "-jar", benchJar, "http-client-run",
                        "--transport", transport, "--url", url, "--connections", String.valueOf(connections),
                        "--concurrency", String.valueOf(concurrency)));
                started.add(p);
                clientProcesses.add(p);
                clients.add(new Client(p));
            }
            System.out.printf("http client GET %s, pool of %d, %d in flight: uring (backend %s) vs pekko transport; "
                    + "%d rounds of %d s%n", url, connections, concurrency, backend, rounds, seconds);
            for (Client c : clients) {
                c.run(warmup); // the JIT's warm-up
            }
            double[][] rates = new double[2][rounds];
            double[][] cpuMicros = new double[2][rounds];
            for (int r = 0; r < rounds; r++) {
                double[] upstreamBusy = new double[2];
                for (int i = 0; i < 2; i++) {
                    HttpLoad.awaitQuiet(clientProcesses);
                    long ticks = HttpLoad.cpuTicks(clientProcesses.get(i).pid());
                    long[] upstreamCpu = HttpLoad.cpuTimes(1);
                    rates[i][r] = clients.get(i).run(seconds);
                    upstreamBusy[i] = HttpLoad.busyShare(upstreamCpu, HttpLoad.cpuTimes(1));
                    cpuMicros[i][r] = (HttpLoad.cpuTicks(clientProcesses.get(i).pid()) - ticks) * 10_000.0
                            / (rates[i][r] * seconds); // a tick is 10 ms (USER_HZ)
                }
                System.out.printf(Locale.ROOT, "round %d: uring %.0f req/s (%.1f us client CPU a request, upstream "
                        + "CPU %.0f%% busy), pekko %.0f req/s (%.1f us, %.0f%%) (%.2fx)%n", r + 1, rates[0][r],
                        cpuMicros[0][r], 100 * upstreamBusy[0], rates[1][r], cpuMicros[1][r], 100 * upstreamBusy[1],
                        rates[0][r] / rates[1][r]);
            }
            HttpLoad.SideBySide medians = new HttpLoad.SideBySide(HttpLoad.median(rates[0]),
                    HttpLoad.median(rates[1]), HttpLoad.median(cpuMicros[0]), HttpLoad.median(cpuMicros[1]));
            System.out.println("http client pool of " + connections + ": " + medians.summary("req/s", "request")
                    .replace("server CPU", "client CPU"));
            FigureRecorder recorder = args.figures("http-client" + (backend.equals("jdk") ? "-jdk-backend" : ""));
            recorder.record("uring-actors", "connections", connections, "requests/s", medians.ours());
            recorder.record("pekko-tcp", "connections", connections, "requests/s", medians.pekko());
        } finally {
            HttpLoad.stopAll(started);
        }
    }

    /** A client JVM ({@link HttpClientRun}) spoken to through its input and output. */
    private static final class Client {
        private final PrintWriter commands;
        private final BufferedReader answers;

        Client(Process p) throws IOException {
            commands = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            expect("ready");
        }

        /** Loads for {@code seconds}: the responses a second. */
        double run(int seconds) throws IOException {
            commands.println("run " + seconds);
            String[] answer = expect("rate ").split(" ");
            if (!answer[3].equals("0")) {
                System.out.println("  " + answer[3] + " requests failed in that run");
            }
            return Double.parseDouble(answer[1]);
        }

        private String expect(String prefix) throws IOException {
            String line;
            while ((line = answers.readLine()) != null) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            throw new IOException("the client ended before it said " + prefix.trim());
        }
    }
}
