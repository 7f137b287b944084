package dev.uringactors.samples;

import com.sun.net.httpserver.HttpServer;
import dev.uringactors.ring.JavaCommand;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The samples that answer through Pekko's Java API, each in a JVM pinned to one CPU (as in a small container):
 * 10,000 requests, every answer right, and no thread started per request. (The proxy started one a request
 * through Pekko's {@code singleRequest}, whose stage runs every callback on the JDK's default async executor.)
 * The quick start's own build is {@code QuickStartTest}'s, which loads it the same way.
 */
@ExtendWith(RequiresIoUring.class)
class OneCpuSamplesTest {
    private static final int REQUESTS = 10_000;
    private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");

    @Test
    void theProxyOnTheRingsStartsNoThreadPerRequest() throws Exception {
        HttpServer upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        upstream.setExecutor(Executors.newFixedThreadPool(4));
        byte[] hello = "upstream says hi".getBytes(StandardCharsets.UTF_8);
        upstream.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, hello.length);
            exchange.getResponseBody().write(hello);
            exchange.close();
        });
        upstream.start();
        try {
            Process proxy = sample("proxy", "--port", "0", "--upstream",
                    "127.0.0.1:" + upstream.getAddress().getPort());
            try {
                OneCpuLoad.startsNoThreadPerRequest(proxy, uri(proxy, "/"), REQUESTS, "upstream says hi");
            } finally {
                stop(proxy);
            }
        } finally {
            upstream.stop(0);
            ((java.util.concurrent.ExecutorService) upstream.getExecutor()).shutdownNow();
        }
    }

    @Test
    void thePekkoHttpSampleOnTheRingsStartsNoThreadPerRequest() throws Exception {
        Process server = sample("pekko-http", "--port", "0");
        try {
            OneCpuLoad.startsNoThreadPerRequest(server, uri(server, "/"), REQUESTS, PekkoHttpServer.HELLO);
        } finally {
            stop(server);
        }
    }

    /** The sample {@code args} in a JVM of its own on CPU 1, on the rings. */
    private static Process sample(String... args) throws Exception {
        List<String> command = JavaCommand.java();
        command.addAll(List.of("-During.backend=io-uring", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(OneCpuLoad.pinned(command)).redirectErrorStream(true).start();
    }

    /** {@code path} at the address the server says it listens on, in its first lines. */
    private static URI uri(Process server, String path) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        for (String line; (line = in.readLine()) != null && lines.size() < 50; ) {
            lines.add(line);
            Matcher listening = LISTENING.matcher(line);
            if (listening.find()) {
                Thread drain = new Thread(() -> drain(in), "sample output");
                drain.setDaemon(true);
                drain.start();
                return URI.create("http://127.0.0.1:" + listening.group(1) + path);
            }
        }
        throw new AssertionError("the server never said where it listens: " + lines);
    }

    private static void drain(BufferedReader in) {
        try {
            while (in.readLine() != null) {
                // the sample's log, read so that its pipe never fills
            }
        } catch (java.io.IOException ended) {
            // the sample ended
        }
    }

    private static void stop(Process server) throws InterruptedException {
        server.destroy();
        if (!server.waitFor(30, TimeUnit.SECONDS)) {
            server.destroyForcibly();
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the sample did not end");
        }
    }
}
