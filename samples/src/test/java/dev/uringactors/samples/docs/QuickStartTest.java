package dev.uringactors.samples.docs;

import dev.uringactors.ring.JavaCommand;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.samples.OneCpuLoad;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Builds examples/quick-start as a user would, in a copy of its own, with a child Maven ({@code mvn -B -o -q
 * package}), then runs its jar on one CPU, asks its route and downloads its file, sends 10,000 requests that may
 * start no thread each ({@link OneCpuLoad}), and stops it with SIGTERM.
 *
 * <p>Where the child finds uring-actors: {@code mvn verify} installs nothing, and a test must not install into
 * the local repository other builds read. So the child gets a local repository of its own (under the test's
 * temporary directory) holding this reactor's poms and jars, laid out as {@code install} lays them out. All the
 * rest (Pekko, Maven's plugins) it copies from the parent build's local repository, which a settings file makes
 * the mirror of every remote repository: a {@code file:} URL, which {@code -Daether.offline.protocols=file}
 * allows offline. The child thus resolves only what the parent build already has, and writes nowhere else. For
 * that it runs in the samples module's integration-test phase (its own Surefire execution, {@code quick-start}):
 * on a fresh local repository, the shade plugin that the quick-start uses too is resolved at package.
 */
@ExtendWith(RequiresIoUring.class)
class QuickStartTest {
    private static final Path PROJECT = DocsTest.ROOT.resolve("examples/quick-start");
    /** The library modules (directory names; each artifact is uring-NAME), in the reactor's order. */
    private static final List<String> MODULES = List.of("ring", "config", "actors", "micrometer", "http");
    private static final Duration BUILD_DEADLINE = Duration.ofMinutes(5);
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    @Test
    void theQuickStartBuildsServesItsRouteAndItsFileOnTheRingsAndStopsOnSigterm() throws Exception {
        String version = firstMatch(DocsTest.ROOT.resolve("pom.xml"),
                "<artifactId>uring-actors-parent</artifactId>\\s*<version>([^<]+)</version>");
        assertEquals(version, firstMatch(PROJECT.resolve("pom.xml"), "<uring-actors.version>([^<]+)<"),
                "examples/quick-start/pom.xml asks for another version of uring-actors than the project's");

        Path project = copy(PROJECT, tmp.resolve("quick-start"));
        Path repository = reactorRepository(tmp.resolve("repository"), version);
        Path settings = Files.writeString(tmp.resolve("settings.xml"), """
                <settings><mirrors><mirror>
                  <id>parent-local-repository</id><mirrorOf>*</mirrorOf><url>%s</url>
                </mirror></mirrors></settings>
                """.formatted(parentRepository().toUri()));
        Path buildLog = tmp.resolve("build.log");
        ProcessBuilder mvn = new ProcessBuilder(maven(), "-B", "-o", "-q", "package", "-s", settings.toString(),
                "-Dmaven.repo.local=" + repository, "-Daether.offline.protocols=file")
                .directory(project.toFile()).redirectErrorStream(true).redirectOutput(buildLog.toFile());
        mvn.environment().put("JAVA_HOME", System.getProperty("java.home")); // this JDK
        Process build = mvn.start();
        try {
            assertTrue(build.waitFor(BUILD_DEADLINE.toSeconds(), TimeUnit.SECONDS), "the build took too long");
            assertEquals(0, build.exitValue(), "the quick-start's build failed:\n" + read(buildLog));
        } finally {
            stop(build);
        }

        byte[] content = new byte[3 * 1024 * 1024 + 17];
        new Random(37).nextBytes(content);
        Path file = Files.write(tmp.resolve("download.bin"), content);
        List<String> command = JavaCommand.java();
        command.addAll(List.of("-During.backend=io-uring", "-jar", "target/quick-start.jar", "0", file.toString()));
        Process server = new ProcessBuilder(OneCpuLoad.pinned(command))
                .directory(project.toFile()).redirectErrorStream(true).start();
        try {
            List<String> output = new ArrayList<>();
            CompletableFuture<String> serving = new CompletableFuture<>();
            Thread reader = new Thread(() -> readLines(server, output, serving), "quick-start output");
            reader.setDaemon(true);
            reader.start();
            String line = serving.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            Matcher address = Pattern.compile("http://(127\\.0\\.0\\.1:\\d+)/hello and /file on IO_URING$")
                    .matcher(line);
            assertTrue(address.find(), "not the line expected: " + line);

            HttpClient client = HttpClient.newBuilder().connectTimeout(DEADLINE).build();
            HttpResponse<String> hello = client.send(get(address.group(1), "/hello"),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, hello.statusCode());
            assertEquals("Hello from the rings", hello.body());
            HttpResponse<byte[]> download = client.send(get(address.group(1), "/file"),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, download.statusCode());
            assertArrayEquals(content, download.body(), "the download differs from the file");
            OneCpuLoad.startsNoThreadPerRequest(server, URI.create("http://" + address.group(1) + "/hello"), 10_000,
                    "Hello from the rings");

            server.destroy(); // SIGTERM: the JVM's shutdown hook runs CoordinatedShutdown
            assertTrue(server.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "no exit after SIGTERM: " + output);
            assertEquals(128 + 15, server.exitValue(), "not ended by SIGTERM: " + output);
        } finally {
            stop(server);
        }
    }

    private static HttpRequest get(String authority, String path) {
        return HttpRequest.newBuilder(URI.create("http://" + authority + path)).timeout(DEADLINE).build();
    }

    /** Collects the server's output; completes {@code serving} with its "serving" line, or fails it at the end. */
    private static void readLines(Process server, List<String> output, CompletableFuture<String> serving) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.startsWith("serving ")) {
                    serving.complete(line);
                }
            }
        } catch (IOException e) {
            serving.completeExceptionally(e);
        }
        synchronized (output) {
            serving.completeExceptionally(new AssertionError("the server ended before serving: " + output));
        }
    }

    /** SIGKILL for whatever is still running, waited for. */
    private static void stop(Process process) throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** The Maven running this build (surefire passes its home), else the one on the PATH. */
    private static String maven() {
        String home = System.getProperty("uring.test.maven.home", "");
        Path mvn = Path.of(home, "bin", "mvn");
        return !home.isEmpty() && !home.startsWith("${") && Files.isExecutable(mvn) ? mvn.toString() : "mvn";
    }

    /** The parent build's local repository (surefire passes it), else Maven's default. */
    private static Path parentRepository() {
        String repository = System.getProperty("uring.test.local-repository", "");
        return !repository.isEmpty() && !repository.startsWith("${") ? Path.of(repository)
                : Path.of(System.getProperty("user.home"), ".m2", "repository");
    }

    /** A local repository with the parent pom and each library module's pom and jar, from this reactor. */
    private static Path reactorRepository(Path repository, String version) throws IOException {
        place(DocsTest.ROOT.resolve("pom.xml"), repository, "uring-actors-parent", version, "pom");
        for (String module : MODULES) {
            String artifact = "uring-" + module;
            Path jar = DocsTest.ROOT.resolve(module).resolve("target").resolve(artifact + "-" + version + ".jar");
            assertTrue(Files.isRegularFile(jar), jar + " is missing: build the libraries first (mvn verify does)");
            place(DocsTest.ROOT.resolve(module).resolve("pom.xml"), repository, artifact, version, "pom");
            place(jar, repository, artifact, version, "jar");
        }
        return repository;
    }

    private static void place(Path from, Path repository, String artifact, String version, String extension)
            throws IOException {
        Path dir = repository.resolve("dev/uringactors").resolve(artifact).resolve(version);
        Files.createDirectories(dir);
        Files.copy(from, dir.resolve(artifact + "-" + version + "." + extension));
    }

    /** The project without its build output, as a user copies it. */
    private static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Path relative = from.relativize(file);
                if (!relative.startsWith("target")) {
                    Files.createDirectories(to.resolve(relative).getParent());
                    Files.copy(file, to.resolve(relative));
                }
            }
        }
        return to;
    }

    private static String firstMatch(Path file, String regex) {
        Matcher m = Pattern.compile(regex).matcher(read(file));
        assertTrue(m.find(), file + " has no " + regex);
        return m.group(1);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
