package dev.uringactors.samples;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * redis-benchmark (from redis-tools, which CI installs) against the kv sample, unpipelined and 16 deep: every
 * test runs to its end with no error reply. Not a measurement: the machine running the tests is shared.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KvRedisBenchmarkTest {
    private static final List<String> TESTS = List.of("PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "MSET");
    private RunningKv kv;
    private Path benchmark;

    @BeforeAll
    void start() throws Exception {
        benchmark = onPath("redis-benchmark").orElse(null);
        Assumptions.assumeTrue(benchmark != null,
                "redis-benchmark is not on the PATH (install redis-tools to run this test)");
        kv = RunningKv.start("");
    }

    @AfterAll
    void stop() {
        if (kv != null) {
            kv.close();
        }
    }

    private static Optional<Path> onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(dir -> Path.of(dir, program)).filter(Files::isExecutable).findFirst();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 16})
    void everyTestRunsWithNoError(int pipeline) throws Exception {
        Process p = new ProcessBuilder(benchmark.toString(), "-h", kv.address.getHostString(),
                "-p", String.valueOf(kv.address.getPort()), "-t", "ping,set,get,incr,mset", "-n", "20000",
                "-c", "20", "-P", String.valueOf(pipeline), "-q")
                .redirectErrorStream(true).start();
        boolean ended = p.waitFor(180, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(ended, "redis-benchmark did not end within 180 s:\n" + output);
        assertEquals(0, p.exitValue(), output);
        assertFalse(output.toLowerCase().contains("error"), output);
        for (String test : TESTS) {
            assertTrue(output.contains(test + (test.equals("MSET") ? " (10 keys)" : "") + ": "), test + ":\n" + output);
        }
        String summary = output.lines().filter(l -> l.contains("requests per second"))
                .map(l -> l.substring(l.lastIndexOf('\r') + 1).trim()).reduce((a, b) -> a + "; " + b).orElse("");
        System.out.println("redis-benchmark -P " + pipeline + " against the kv sample: " + summary);
    }
}
