package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The echo server in its own JVM with a low open-files limit: past it, accepting fails with EMFILE; the listener
 * backs off, and accepts the waiting connections as earlier ones close. The limit applies only to the child.
 */
@ExtendWith(RequiresIoUring.class)
class FdExhaustionTest {
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");

    @Test
    void outOfFileDescriptorsTheListenerBacksOffAndRecovers() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")), "needs prlimit(1) to limit the child's files");
        List<String> command = List.of("/usr/bin/prlimit", "--nofile=200:200", "--",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-During.rings=1", "-During.tcp.accept-backoff=20ms", "-cp", System.getProperty("java.class.path"),
                PreloadingMain.class.getName(), "echo", "--port", "0");
        Process server = new ProcessBuilder(command).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (Exception e) {
                port.completeExceptionally(e);
            }
        });
        reader.start();
        List<Socket> clients = new ArrayList<>();
        try {
            int p = port.get(60, TimeUnit.SECONDS);
            for (int i = 0; i < 300; i++) { // more than the child can hold open at once
                Socket s = new Socket(InetAddress.getLoopbackAddress(), p);
                s.setSoTimeout(30_000);
                s.getOutputStream().write(i);
                clients.add(s);
            }
            for (int i = 0; i < clients.size(); i++) { // each echo, then close: the server gets its fd back
                int echo;
                try {
                    echo = clients.get(i).getInputStream().read();
                } catch (java.net.SocketTimeoutException e) {
                    synchronized (output) {
                        throw new AssertionError("no echo on connection " + i + "; the server said:\n" + output, e);
                    }
                }
                assertEquals(i & 0xff, echo, "echo on connection " + i);
                clients.get(i).close();
            }
            synchronized (output) {
                assertTrue(output.toString().contains("failed: EMFILE"), "the listener met the limit: " + output);
            }
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            server.destroy();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
