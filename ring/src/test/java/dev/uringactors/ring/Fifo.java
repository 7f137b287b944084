package dev.uringactors.ring;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A named pipe for tests: reads of it stay in flight until something is written. */
public final class Fifo {
    private Fifo() {
    }

    public static Path create(Path dir, String name) throws Exception {
        Path fifo = dir.resolve(name);
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("mkfifo " + fifo + " failed");
        }
        return fifo;
    }
}
