package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.util.ArrayList;
import java.util.List;

/**
 * The pekko-http sample on the rings against the same sample on Pekko's own TCP: the same routes and settings,
 * {@code GET /} (a 13-byte hello). Both servers are pinned to CPU 1 and the load to CPU 0: wrk ({@code -t1 -c64})
 * for HTTP/1.1, or with {@code --protocol h2c} h2load ({@code -c16 -m32}, prior knowledge) against both servers
 * started with {@code pekko.http.server.enable-http2 = on}. They run side by side and are measured alternately,
 * after each JVM has been warmed up ({@code --warmup} seconds of load, 20 by default; Pekko's transport still
 * gains after 40) and before each run both are quiet (no JIT still compiling). Each round says the server's CPU
 * time and context switches a request too, which the load tool's own limit does not bound. The last line gives
 * the medians. With {@code --backend jdk} the uring side runs on the JDK backend (the fallback where io_uring is
 * refused), which should cost nothing over Pekko's own.
 */
final class PekkoHttpBench {
    private PekkoHttpBench() {
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 6);
        int rounds = args.intValue("rounds", 3);
        int warmup = args.intValue("warmup", 20);
        String sampleJar = args.sampleJar();
        boolean h2c = switch (args.string("protocol", "h1")) {
            case "h1" -> false;
            case "h2c" -> true;
            default -> throw new IllegalArgumentException("--protocol is h1 or h2c");
        };
        String loadTool = h2c ? HttpLoad.onPath("h2load", "nghttp2-client") : HttpLoad.onPath("wrk", "wrk");
        String backend = args.string("backend", "io-uring");
        List<Process> started = new ArrayList<>();
        try {
            String[] urls = new String[2]; // uring, pekko
            String[] transports = {"uring", "pekko"};
            for (int i = 0; i < 2; i++) {
                Process sample = HttpLoad.start(List.of("taskset", "-c", "1", "java", "-During.backend=" + backend,
                        "-Dpekko.http.server.enable-http2=" + (h2c ? "on" : "off"), "-jar", sampleJar,
                        "pekko-http", "--port", "0", "--transport", transports[i]));
                started.add(sample);
                urls[i] = "http://127.0.0.1:" + HttpLoad.listeningPort(sample) + "/";
            }
            System.out.printf("pekko-http sample (%s) on uring, backend %s (%s) and on pekko (%s); %d rounds of %d s%n",
                    h2c ? "h2c" : "HTTP/1.1", backend, urls[0], urls[1], rounds, seconds);
            for (String url : urls) { // the JIT's warm-up: C2 keeps compiling for 20 s of load and more
                load(h2c, loadTool, url, warmup);
            }
            HttpLoad.SideBySide medians = HttpLoad.inTurn(started, rounds, seconds, "req/s", "request",
                    server -> load(h2c, loadTool, urls[server], seconds));
            System.out.println("pekko-http GET / " + (h2c ? "h2c c16 m32" : "c64") + ": "
                    + medians.summary("req/s", "request"));
            FigureRecorder recorder = args.figures((h2c ? "pekko-http-h2c" : "pekko-http")
                    + (backend.equals("jdk") ? "-jdk-backend" : ""));
            recorder.record("uring-actors", "connections", h2c ? 16 : 64, "requests/s", medians.ours());
            recorder.record("pekko-tcp", "connections", h2c ? 16 : 64, "requests/s", medians.pekko());
        } finally {
            HttpLoad.stopAll(started);
        }
    }

    private static double load(boolean h2c, String tool, String url, int seconds) throws Exception {
        return h2c ? HttpLoad.h2load(tool, url, seconds) : HttpLoad.wrk(tool, url, seconds);
    }
}
