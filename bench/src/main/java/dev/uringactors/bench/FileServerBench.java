package dev.uringactors.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sample file server against nginx, both pinned to CPU 1, with wrk on CPU 0 ({@code -t1 -c64}): a 4 KiB file
 * in requests per second and a 1 MiB file in MB/s (10^6 bytes). nginx gets one worker with sendfile and
 * tcp_nopush, as it would be set up to serve static files. Both run side by side and are measured alternately,
 * round after round; the sample's JVM is warmed up first. The last line gives the median of the rounds.
 */
final class FileServerBench {
    private static final Pattern REQUESTS = Pattern.compile("Requests/sec:\\s*([0-9.]+)");
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");
    private static final int SMALL = 4096;
    private static final int LARGE = 1 << 20;

    private FileServerBench() {
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 6);
        int rounds = args.intValue("rounds", 3);
        String sampleJar = args.string("sample-jar", "samples/target/uring-samples.jar");
        String spliceThreshold = args.string("splice-threshold", "64KiB");
        String nginx = onPath("nginx");
        String wrk = onPath("wrk");
        if (!Files.isRegularFile(Path.of(sampleJar))) {
            throw new IllegalArgumentException(sampleJar + " is missing: build with mvn -B -DskipTests package");
        }
        Path dir = Files.createTempDirectory("uring-file-server-bench");
        Path root = Files.createDirectories(dir.resolve("root"));
        Random random = new Random(1);
        for (int size : new int[] {SMALL, LARGE}) {
            byte[] data = new byte[size];
            random.nextBytes(data);
            Files.write(root.resolve(name(size)), data);
        }
        int nginxPort = 18180;
        Files.writeString(dir.resolve("nginx.conf"), nginxConfig(dir, root, nginxPort));
        List<Process> started = new ArrayList<>();
        try {
            started.add(start(List.of("taskset", "-c", "1", nginx, "-c", dir.resolve("nginx.conf").toString())));
            Process sample = start(List.of("taskset", "-c", "1", "java",
                    "-During.tcp.splice-threshold=" + spliceThreshold, "-jar", sampleJar,
                    "files", "--root", root.toString(), "--port", "0"));
            started.add(sample);
            int samplePort = listeningPort(sample);
            String uring = "http://127.0.0.1:" + samplePort + "/";
            String ngx = "http://127.0.0.1:" + nginxPort + "/";
            System.out.printf("file server (splice-threshold %s) on port %d, nginx %s on port %d; %d rounds of %d s%n",
                    spliceThreshold, samplePort, nginx, nginxPort, rounds, seconds);
            // The JIT's warm-up (C2 keeps compiling for some 20 s of load, on the server's CPU), then a round of
            // both files, so that no path is compiled for the first time while it is measured; nginx needs none.
            wrk(wrk, uring + name(SMALL), 20);
            for (int size : new int[] {LARGE, SMALL, LARGE}) {
                wrk(wrk, uring + name(size), seconds);
            }
            double[][] figures = new double[4][rounds]; // 4k uring, 4k nginx, 1m uring, 1m nginx
            for (int r = 0; r < rounds; r++) {
                figures[0][r] = wrk(wrk, uring + name(SMALL), seconds);
                figures[1][r] = wrk(wrk, ngx + name(SMALL), seconds);
                figures[2][r] = wrk(wrk, uring + name(LARGE), seconds) * LARGE / 1e6;
                figures[3][r] = wrk(wrk, ngx + name(LARGE), seconds) * LARGE / 1e6;
                System.out.printf(Locale.ROOT, "round %d: 4k uring %.0f req/s nginx %.0f req/s (%.2fx), "
                                + "1m uring %.0f MB/s nginx %.0f MB/s (%.2fx)%n", r + 1, figures[0][r], figures[1][r],
                        figures[0][r] / figures[1][r], figures[2][r], figures[3][r], figures[2][r] / figures[3][r]);
            }
            System.out.printf(Locale.ROOT, "file-server c64: 4k uring %.0f req/s nginx %.0f req/s, "
                            + "1m uring %.0f MB/s nginx %.0f MB/s%n", median(figures[0]), median(figures[1]),
                    median(figures[2]), median(figures[3]));
        } finally {
            for (Process p : started) {
                p.destroy(); // SIGTERM: nginx's master takes its worker with it
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    private static String name(int size) {
        return size == SMALL ? "4k.bin" : "1m.bin";
    }

    private static String nginxConfig(Path dir, Path root, int port) {
        return """
                worker_processes 1;
                daemon off;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log;
                events { worker_connections 4096; }
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

    private static String onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            for (String prefix : new String[] {dir, "/usr/sbin"}) {
                Path candidate = Path.of(prefix, program);
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        throw new IllegalArgumentException(program + " not found: apt-get install nginx wrk");
    }

    private static Process start(List<String> command) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Reads the sample's output until it says where it listens. */
    private static int listeningPort(Process sample) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(sample.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> drain(out), "sample-output");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IllegalStateException("the file server sample did not start");
    }

    /** Reads what the sample prints until it exits, so that it never blocks on a full pipe. */
    private static void drain(BufferedReader out) {
        try {
            out.transferTo(Writer.nullWriter());
        } catch (IOException e) {
            // the sample was stopped
        }
    }

    /** Requests per second of one bounded wrk run on CPU 0. */
    private static double wrk(String wrk, String url, int seconds) throws Exception {
        Process p = start(List.of("taskset", "-c", "0", wrk, "-t1", "-c64", "-d" + seconds + "s", url));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Matcher m = REQUESTS.matcher(out);
        if (p.waitFor() != 0 || !m.find() || out.contains("Non-2xx")) {
            throw new IllegalStateException("wrk against " + url + " failed: " + out);
        }
        return Double.parseDouble(m.group(1));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
