package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The files sample where io_uring is refused (a seccomp filter, as in a container: {@link IoUringRefusedMain}):
 * with {@code uring.backend = auto} it says why, starts on the JDK backend, serves files and refuses a way out of
 * its root.
 */
@ExtendWith(RequiresIoUring.class) // so that what is refused is the filter's doing, not this kernel's
class FileServerWithoutIoUringTest {
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");

    @TempDir
    Path dir;

    @Test
    void theFilesSampleStartsOnTheJdkBackendAndServes() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        byte[] content = new byte[300_000];
        new Random(21).nextBytes(content);
        Files.write(root.resolve("data.bin"), content);
        Files.writeString(dir.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("out"), dir.resolve("secret.txt"));
        Process server = ProcessFailuresTest.java(IoUringRefusedMain.class.getName(),
                List.of("-During.backend=auto", "-During.rings=1"), "files", "--root", root.toString(), "--port", "0");
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8));
            List<String> seen = new ArrayList<>();
            Integer port = null;
            for (String line; port == null && (line = lines.readLine()) != null; ) {
                seen.add(line);
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    port = Integer.valueOf(m.group(1));
                }
            }
            assumeTrue(seen.stream().noneMatch(l -> l.startsWith("no seccomp filter")), String.join("\n", seen));
            assertNotNull(port, "the server said where it listens:\n" + String.join("\n", seen));
            String output = String.join("\n", seen);
            assertTrue(output.contains("uring.backend = auto: io_uring_setup: EPERM")
                    && output.contains("running the JDK backend"), output);
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            try (HttpExchange http = new HttpExchange(address)) {
                HttpExchange.Response ok = http.exchange(HttpExchange.get("/data.bin", ""));
                assertEquals(200, ok.status());
                assertArrayEquals(content, ok.body());
                assertEquals(404, http.exchange(HttpExchange.get("/missing", "")).status());
            }
            try (HttpExchange http = new HttpExchange(address)) {
                HttpExchange.Response out = http.exchange(HttpExchange.get("/out", ""));
                assertEquals(403, out.status(), "a symlink out of the root");
                assertTrue(!out.text().contains("secret"), out.text());
            }
        } finally {
            server.destroy();
            assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server ends on SIGTERM");
        }
    }
}
