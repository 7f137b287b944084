package dev.uringactors.samples;

import dev.uringactors.ring.JavaCommand;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The samples as processes: failures to start end them at once with one clear line; SIGTERM always ends them. */
@ExtendWith(RequiresIoUring.class)
class ProcessFailuresTest {
    /** A JVM running {@code mainClass} with this test's class path; output and errors together. */
    static Process java(String mainClass, List<String> jvmOptions, String... args) throws Exception {
        List<String> command = JavaCommand.java();
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static String output(Process p) throws Exception {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "a port that is no number    | -Dx=1 | http --port abc | 2 | --port abc: not a number",
        "a host that does not exist  | -Dx=1 | http --host no.such.host.invalid | 2 | no such host",
        "a bad setting               | -During.wait-strategy=spin | http --port 0 | 1 | uring.wait-strategy",
        "a misspelt setting          | -During.wiat-strategy=classic | http --port 0 | 1 | did you mean uring.wait-strategy",
        "an SQ thread CPU not online | -During.defer-taskrun=off -During.sqpoll.enabled=on -During.sqpoll.cpus.0=4095"
                + " | http --port 0 | 1 | uring.sqpoll.cpus': must be CPUs that are online",
        "a sample that does not exist | -Dx=1 | serve | 2 | no sample serve",
        "a transport that does not exist | -Dx=1 | pekko-http --transport nio | 2 | --transport nio: uring or pekko",
    })
    void aServerThatCannotStartSaysWhyAtOnce(String what, String jvmOptions, String args, int status,
                                            String message) throws Exception {
        Process p = java(AnnouncedMain.class.getName(), List.of(jvmOptions.split(" ")), args.split(" "));
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String line; (line = lines.readLine()) != null && !line.equals(AnnouncedMain.STARTING); ) {
            out.append(line).append('\n'); // what the JVM said before the sample started
        }
        // Timed from the sample's start, not the JVM's launch: on a loaded 2-core machine the launch alone took
        // 0.9-1.3 s, and cases 3.2 s from it.
        long start = System.nanoTime();
        for (String line; (line = lines.readLine()) != null; ) {
            out.append(line).append('\n');
        }
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), what);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(status, p.exitValue(), what + ": " + out);
        assertTrue(out.toString().contains("error: ") && out.toString().contains(message), what + ": " + out);
        assertTrue(millis < 2_000, what + " took " + millis + " ms from the sample's start");
    }

    @Test
    void withStatsAServerPrintsItsRingsCountersAtTheInterval() throws Exception {
        Process p = java(Main.class.getName(), List.of("-During.rings=2"), "echo", "--port", "0", "--stats", "100ms");
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            List<String> stats = new ArrayList<>();
            for (String line; stats.size() < 2 && (line = lines.readLine()) != null; ) {
                if (line.startsWith("stats ")) {
                    stats.add(line);
                }
            }
            assertEquals(2, stats.size(), "two lines at 100 ms");
            // The second line has rates: there was a line before it to count from.
            assertTrue(stats.get(1).matches("stats ring 0: \\d+ completions/s, [0-9.]+ SQEs/enter, \\d+ wake-ups/s, "
                    + "\\d+ in flight, \\d+ backlog, 0 CQ overflows, 0 connections; ring 1: .*"), stats.get(1));
        } finally {
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        }
    }

    @Test
    void aStatsIntervalThatIsNoIntervalIsAUsageError() throws Exception {
        Process p = java(Main.class.getName(), List.of("-Dx=1"), "echo", "--port", "0", "--stats", "often");
        String out = output(p);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue(), out);
        assertTrue(out.contains("--stats often: not an interval"), out);
    }

    @Test
    void sigtermEndsTheProcessEvenWithAHandlerStuckOnARing() throws Exception {
        Process p = java(StuckHandlerMain.class.getName(), List.of("-During.rings=1", "-During.shutdown-timeout=1s"),
                "http", "--port", "0");
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = lines.readLine()) != null && !line.contains("stuck handler running"); ) {
            seen.append(line).append('\n');
        }
        long start = System.nanoTime();
        // SIGTERM, as Ctrl-C or a service manager sends it (Process.destroy would also close our end of its output)
        assertEquals(0, new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor());
        String rest = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "ended after SIGTERM: " + seen + rest);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis < 1_000 + 5_000 + 3_000, "within the shutdown timeout and its grace: " + millis + " ms");
        assertTrue(rest.contains("did not stop within") && rest.contains("uring-ring-0"), rest);
        assertEquals(1, p.exitValue());
    }

    /** The stuck-task warning names the setting and the application's own frame, where the blocking call is. */
    @Test
    void theStuckTaskWarningNamesTheHandlersFrameAndTheSetting() throws Exception {
        Process p = java(StuckHandlerMain.class.getName(), List.of("-During.rings=1", "-During.shutdown-timeout=1s",
                "-During.dispatcher.stuck-task-warning=200ms"), "http", "--port", "0");
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder seen = new StringBuilder();
            String warning = null;
            for (String line; warning == null && (line = lines.readLine()) != null; ) {
                seen.append(line).append('\n');
                warning = line.contains("one task has run for more than") ? line : null;
            }
            assertTrue(warning != null, "a warning, in: " + seen);
            assertTrue(warning.contains("(uring.dispatcher.stuck-task-warning)"), warning);
            assertTrue(warning.contains("dev.uringactors.samples.StuckHandlerMain.lambda$main"), warning);
        } finally {
            p.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void probeExitsOneWhenIoUringIsDisabled() throws Exception {
        Process available = java(Main.class.getName(), List.of("-Dx=1"), "probe");
        String out = output(available);
        assertTrue(available.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, available.exitValue(), out);
        assertTrue(out.contains("uring.backend = auto would run: io-uring (uring.backend = auto: io_uring accepts"),
                out);

        Path sysctl = Path.of("/proc/sys/kernel/io_uring_disabled");
        String before = Files.readString(sysctl).strip();
        assumeTrue(before.equals("0"), "kernel.io_uring_disabled is " + before + ", not 0, before this test switches"
                + " it: an interrupted run may have left it so (sysctl kernel.io_uring_disabled=0 restores it)");
        // Restored in the finally below, and by this hook if the JVM is ended before it gets there.
        Thread restore = new Thread(() -> writeSysctl(sysctl, before), "restore-io_uring_disabled");
        Runtime.getRuntime().addShutdownHook(restore);
        try {
            try {
                Files.writeString(sysctl, "2"); // io_uring off for every process, root too
            } catch (IOException e) {
                assumeTrue(false, "cannot switch io_uring off here to see probe fail (" + e.getMessage() + ")");
            }
            Process disabled = java(Main.class.getName(), List.of("-Dx=1"), "probe");
            String report = output(disabled);
            assertTrue(disabled.waitFor(10, TimeUnit.SECONDS));
            assertEquals(1, disabled.exitValue(), report);
            assertTrue(report.contains("io_uring is NOT available"), report);
        } finally {
            writeSysctl(sysctl, before);
            Runtime.getRuntime().removeShutdownHook(restore);
        }
    }

    private static void writeSysctl(Path sysctl, String value) {
        try {
            Files.writeString(sysctl, value);
        } catch (IOException e) {
            throw new UncheckedIOException("could not restore " + sysctl + " to " + value, e);
        }
    }
}
