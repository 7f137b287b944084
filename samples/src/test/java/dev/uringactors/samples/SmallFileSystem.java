package dev.uringactors.samples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tmpfs of a given size, mounted for a test (which runs as root, as CI does) and unmounted after it. */
final class SmallFileSystem implements AutoCloseable {
    private final Path path;

    private SmallFileSystem(Path path) {
        this.path = path;
    }

    static SmallFileSystem mount(Path path, long bytes) throws Exception {
        Files.createDirectories(path);
        run("mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", path.toString());
        return new SmallFileSystem(path);
    }

    Path path() {
        return path;
    }

    /** Gives it {@code bytes} of room in all, its files kept. */
    void resize(long bytes) throws Exception {
        run("mount", "-o", "remount,size=" + bytes, path.toString());
    }

    @Override
    public void close() throws Exception {
        run("umount", "--lazy", path.toString());
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        String output = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + output);
    }
}
