package dev.uringactors.bench;

import dev.uringactors.bench.figures.FigureRecorder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The proxy sample against the same sample on Pekko's own TCP and against nginx's {@code proxy_pass} (one
 * worker, 64 keep-alive connections to the upstream), each in front of the same upstream: nginx serving a small
 * file. The proxies are pinned to CPU 1, the upstream and wrk ({@code -t1 -c64}) to CPU 0; the proxies are measured
 * in turn, each once the JVMs are quiet, after a warm-up of {@code --warmup} seconds each. A round gives each
 * proxy's requests a second and CPU 1's busy time a request (the proxy's CPU, its kernel work included, the same
 * measure for a JVM and for nginx).
 */
final class ProxyBench {
    private static final String[] NAMES = {"uring", "pekko", "nginx"};
    private static final int UPSTREAM_PORT = 18280;
    private static final int NGINX_PROXY_PORT = 18281;

    private ProxyBench() {
    }

    static void main(Args args) throws Exception {
        int seconds = args.intValue("seconds", 6);
        int rounds = args.intValue("rounds", 3);
        int warmup = args.intValue("warmup", 20);
        String sampleJar = args.sampleJar();
        String nginx = HttpLoad.onPath("nginx", "nginx wrk");
        String wrk = HttpLoad.onPath("wrk", "nginx wrk");
        Path dir = Files.createTempDirectory("uring-proxy-bench");
        Path root = Files.createDirectories(dir.resolve("root"));
        Files.writeString(root.resolve("small.txt"), "a small file from the upstream\n");
        HttpLoad.openToNginx(dir, root);
        Path upstreamDir = Files.createDirectories(dir.resolve("upstream"));
        Path proxyDir = Files.createDirectories(dir.resolve("proxy"));
        Files.writeString(upstreamDir.resolve("nginx.conf"), upstreamConfig(upstreamDir, root));
        Files.writeString(proxyDir.resolve("nginx.conf"), proxyConfig(proxyDir));
        List<Process> started = new ArrayList<>();
        try {
            started.add(HttpLoad.start(List.of("taskset", "-c", "0", nginx, "-c",
                    upstreamDir.resolve("nginx.conf").toString())));
            started.add(HttpLoad.start(List.of("taskset", "-c", "1", nginx, "-c",
                    proxyDir.resolve("nginx.conf").toString())));
            List<Process> jvms = new ArrayList<>();
            String[] urls = new String[3];
            for (int i = 0; i < 2; i++) {
                Process proxy = HttpLoad.start(List.of("taskset", "-c", "1", "java", "-jar", sampleJar, "proxy",
                        "--port", "0", "--upstream", "127.0.0.1:" + UPSTREAM_PORT, "--transport", NAMES[i]));
                started.add(proxy);
                jvms.add(proxy);
                urls[i] = "http://127.0.0.1:" + HttpLoad.listeningPort(proxy) + "/small.txt";
            }
            urls[2] = "http://127.0.0.1:" + NGINX_PROXY_PORT + "/small.txt";
            System.out.printf("proxy sample on uring (%s) and on pekko (%s), nginx proxy_pass (%s), upstream nginx "
                    + "on port %d; %d rounds of %d s%n", urls[0], urls[1], urls[2], UPSTREAM_PORT, rounds, seconds);
            for (int i = 0; i < 3; i++) {
                HttpLoad.wrk(wrk, urls[i], i < 2 ? warmup : seconds); // the JIT's warm-up; nginx needs none
            }
            double[][] rates = new double[3][rounds];
            double[][] cpuMicros = new double[3][rounds];
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < 3; i++) {
                    HttpLoad.awaitQuiet(jvms);
                    long[] before = HttpLoad.cpuTimes(1);
                    rates[i][r] = HttpLoad.wrk(wrk, urls[i], seconds);
                    cpuMicros[i][r] = HttpLoad.busyShare(before, HttpLoad.cpuTimes(1)) * 1e6 / rates[i][r];
                }
                System.out.printf(Locale.ROOT, "round %d: uring %.0f req/s (%.1f us CPU 1 a request), pekko %.0f "
                        + "(%.1f us), nginx %.0f (%.1f us): uring/pekko %.2fx, uring/nginx %.2fx%n", r + 1,
                        rates[0][r], cpuMicros[0][r], rates[1][r], cpuMicros[1][r], rates[2][r], cpuMicros[2][r],
                        rates[0][r] / rates[1][r], rates[0][r] / rates[2][r]);
            }
            double[] medians = new double[3];
            double[] cpu = new double[3];
            for (int i = 0; i < 3; i++) {
                medians[i] = HttpLoad.median(rates[i]);
                cpu[i] = HttpLoad.median(cpuMicros[i]);
            }
            System.out.printf(Locale.ROOT, "proxy c64: uring %.0f req/s, pekko %.0f req/s, nginx %.0f req/s "
                    + "(uring/pekko %.2fx, uring/nginx %.2fx); CPU 1 a request %.1f, %.1f, %.1f us%n", medians[0],
                    medians[1], medians[2], medians[0] / medians[1], medians[0] / medians[2], cpu[0], cpu[1], cpu[2]);
            FigureRecorder recorder = args.figures("proxy");
            String[] contenders = {"uring-actors", "pekko-tcp", "nginx"};
            for (int i = 0; i < 3; i++) {
                recorder.record(contenders[i], "connections", 64, "requests/s", medians[i]);
            }
        } finally {
            HttpLoad.stopAll(started); // SIGTERM: each nginx master takes its worker with it
        }
    }

    private static String upstreamConfig(Path dir, Path root) {
        return HttpLoad.nginxMain(dir) + """
                http {
                  access_log off;
                  keepalive_requests 100000;
                  server { listen 127.0.0.1:%d; root %s; }
                }
                """.formatted(UPSTREAM_PORT, root);
    }

    private static String proxyConfig(Path dir) {
        return HttpLoad.nginxMain(dir) + """
                http {
                  access_log off;
                  keepalive_requests 100000;
                  upstream up { server 127.0.0.1:%1$d; keepalive 64; keepalive_requests 100000; }
                  server {
                    listen 127.0.0.1:%2$d;
                    location / {
                      proxy_pass http://up;
                      proxy_http_version 1.1;
                      proxy_set_header Connection "";
                    }
                  }
                  client_body_temp_path %3$s;
                  proxy_temp_path %3$s;
                  fastcgi_temp_path %3$s;
                  uwsgi_temp_path %3$s;
                  scgi_temp_path %3$s;
                }
                """.formatted(UPSTREAM_PORT, NGINX_PROXY_PORT, dir);
    }
}
