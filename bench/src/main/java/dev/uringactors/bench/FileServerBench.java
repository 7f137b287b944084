package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The sample file server against nginx, both pinned to CPU 1, with wrk on CPU 0 ({@code -t1 -c64}): a 4 KiB file
 * in requests per second and a 1 MiB file in MB/s (10^6 bytes). nginx gets one worker with sendfile and
 * tcp_nopush, as it would be set up to serve static files. Both run side by side and are measured alternately,
 * round after round; the sample's JVM is warmed up first. The last line gives the median of the rounds.
 */
final class FileServerBench {
    private static final int SMALL = 4096;
    private static final int LARGE = 1 << 20;

    private FileServerBench() {
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 6);
        int rounds = args.intValue("rounds", 3);
        String sampleJar = args.sampleJar();
        String spliceThreshold = args.string("splice-threshold", "64KiB");
        String nginx = HttpLoad.onPath("nginx", "nginx wrk");
        String wrk = HttpLoad.onPath("wrk", "nginx wrk");
        Path dir = Files.createTempDirectory("uring-file-server-bench");
        Path root = Files.createDirectories(dir.resolve("root"));
        Random random = new Random(1);
        for (int size : new int[] {SMALL, LARGE}) {
            byte[] data = new byte[size];
            random.nextBytes(data);
            Files.write(root.resolve(name(size)), data);
        }
        HttpLoad.openToNginx(dir, root);
        int nginxPort = 18180;
        Files.writeString(dir.resolve("nginx.conf"), nginxConfig(dir, root, nginxPort));
        List<Process> started = new ArrayList<>();
        try {
            Process nginxProcess = HttpLoad.start(List.of("taskset", "-c", "1", nginx, "-c",
                    dir.resolve("nginx.conf").toString()));
            started.add(nginxProcess);
            Process sample = HttpLoad.start(List.of("taskset", "-c", "1", "java",
                    "-During.tcp.splice-threshold=" + spliceThreshold, "-During.jmx=on", "-jar", sampleJar,
                    "files", "--root", root.toString(), "--port", "0"));
            started.add(sample);
            int samplePort = HttpLoad.listeningPort(sample);
            String uring = "http://127.0.0.1:" + samplePort + "/";
            String ngx = "http://127.0.0.1:" + nginxPort + "/";
            System.out.printf("file server (splice-threshold %s) on port %d, nginx %s on port %d; %d rounds of %d s%n",
                    spliceThreshold, samplePort, nginx, nginxPort, rounds, seconds);
            // The JIT's warm-up (C2 keeps compiling for some 20 s of load, on the server's CPU), then a round of
            // both files, so that no path is compiled for the first time while it is measured; nginx needs none.
            HttpLoad.wrk(wrk, uring + name(SMALL), 20);
            for (int size : new int[] {LARGE, SMALL, LARGE}) {
                HttpLoad.wrk(wrk, uring + name(size), seconds);
            }
            double[][] figures = new double[4][rounds]; // 4k uring, 4k nginx, 1m uring, 1m nginx
            ServerCost.PerOperation[][] costs = new ServerCost.PerOperation[4][rounds];
            List<Process> servers = List.of(sample, nginxProcess, sample, nginxProcess);
            List<String> urls = List.of(uring + name(SMALL), ngx + name(SMALL), uring + name(LARGE),
                    ngx + name(LARGE));
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < 4; i++) {
                    long pid = servers.get(i).pid();
                    ServerCost cost = i % 2 == 0 ? ServerCost.ofJvm(pid) : ServerCost.ofNative(pid);
                    double requestsPerSecond = HttpLoad.wrk(wrk, urls.get(i), seconds);
                    costs[i][r] = cost.per(requestsPerSecond * seconds);
                    figures[i][r] = i < 2 ? requestsPerSecond : requestsPerSecond * LARGE / 1e6;
                }
                System.out.printf(Locale.ROOT, "round %d: 4k uring %.0f req/s nginx %.0f req/s (%.2fx), "
                                + "1m uring %.0f MB/s nginx %.0f MB/s (%.2fx)%n", r + 1, figures[0][r], figures[1][r],
                        figures[0][r] / figures[1][r], figures[2][r], figures[3][r], figures[2][r] / figures[3][r]);
                System.out.printf("  a request: 4k uring %s, nginx %s; 1m uring %s, nginx %s%n",
                        costs[0][r].describe(), costs[1][r].describe(), costs[2][r].describe(),
                        costs[3][r].describe());
            }
            System.out.printf(Locale.ROOT, "file-server c64: 4k uring %.0f req/s nginx %.0f req/s, "
                            + "1m uring %.0f MB/s nginx %.0f MB/s%n", HttpLoad.median(figures[0]),
                    HttpLoad.median(figures[1]), HttpLoad.median(figures[2]), HttpLoad.median(figures[3]));
            FigureRecorder recorder = args.figures("file-server");
            record(recorder, "uring-actors", SMALL, HttpLoad.median(figures[0]) * SMALL / 1e6);
            record(recorder, "nginx", SMALL, HttpLoad.median(figures[1]) * SMALL / 1e6);
            record(recorder, "uring-actors", LARGE, HttpLoad.median(figures[2]));
            record(recorder, "nginx", LARGE, HttpLoad.median(figures[3]));
        } finally {
            HttpLoad.stopAll(started); // SIGTERM: nginx's master takes its worker with it
        }
    }

    /** A median of the rounds, in MB/s for the chart by file size and in requests/s as the tables give it. */
    private static void record(FigureRecorder recorder, String series, int size, double megabytesPerSecond) {
        recorder.record(series, "file size (KiB)", size / 1024, "MB/s", megabytesPerSecond);
        recorder.record(series, "file size (KiB)", size / 1024, "requests/s", megabytesPerSecond * 1e6 / size);
    }

    private static String name(int size) {
        return size == SMALL ? "4k.bin" : "1m.bin";
    }

    private static String nginxConfig(Path dir, Path root, int port) {
        return HttpLoad.nginxMain(dir) + """
                http {
                  access_log off;
                  sendfile on;
                  tcp_nopush on;
                  keepalive_requests 100000;
                  client_body_temp_path %1$s;
                  proxy_temp_path %1$s;
                  fastcgi_temp_path %1$s;
                  uwsgi_temp_path %1$s;
                  scgi_temp_path %1$s;
                  server { listen 127.0.0.1:%2$d; root %3$s; }
                }
                """.formatted(dir, port, root);
    }
}
