package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The pekko-http sample on the rings against the same sample on Pekko's own TCP: the same routes and settings,
 * {@code GET /} (a 13-byte hello). Both servers are pinned to CPU 1 and wrk ({@code -t1 -c64}) to CPU 0; they run
 * side by side and are measured alternately, after each JVM has been warmed up. The last line gives the medians.
 */
final class PekkoHttpBench {
    private PekkoHttpBench() {
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 6);
        int rounds = args.intValue("rounds", 3);
        String sampleJar = args.string("sample-jar", "samples/target/uring-samples.jar");
        String wrk = HttpLoad.onPath("wrk", "wrk");
        HttpLoad.requireSampleJar(sampleJar);
        List<Process> started = new ArrayList<>();
        try {
            String[] urls = new String[2]; // uring, pekko
            String[] transports = {"uring", "pekko"};
            for (int i = 0; i < 2; i++) {
                Process sample = HttpLoad.start(List.of("taskset", "-c", "1", "java", "-jar", sampleJar,
                        "pekko-http", "--port", "0", "--transport", transports[i]));
                started.add(sample);
                urls[i] = "http://127.0.0.1:" + HttpLoad.listeningPort(sample) + "/";
            }
            System.out.printf("pekko-http sample on uring (%s) and on pekko (%s); %d rounds of %d s%n", urls[0],
                    urls[1], rounds, seconds);
            for (String url : urls) { // the JIT's warm-up: C2 keeps compiling for some 20 s of load
                HttpLoad.wrk(wrk, url, 20);
            }
            double[][] figures = new double[2][rounds];
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < 2; i++) {
                    figures[i][r] = HttpLoad.wrk(wrk, urls[i], seconds);
                }
                System.out.printf(Locale.ROOT, "round %d: uring %.0f req/s, pekko %.0f req/s (%.2fx)%n", r + 1,
                        figures[0][r], figures[1][r], figures[0][r] / figures[1][r]);
            }
            double uring = HttpLoad.median(figures[0]);
            double pekko = HttpLoad.median(figures[1]);
            System.out.printf(Locale.ROOT, "pekko-http GET / c64: uring %.0f req/s, pekko %.0f req/s (%.2fx)%n",
                    uring, pekko, uring / pekko);
            FigureRecorder recorder = args.figures("pekko-http");
            recorder.record("uring-actors", "connections", 64, "requests/s", uring);
            recorder.record("pekko-tcp", "connections", 64, "requests/s", pekko);
        } finally {
            HttpLoad.stopAll(started);
        }
    }
}
