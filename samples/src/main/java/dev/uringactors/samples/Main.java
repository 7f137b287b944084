package dev.uringactors.samples;

import dev.uringactors.ring.Probe;
import dev.uringactors.ring.UringException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;

/** {@code java -jar samples/target/uring-samples.jar <sample> [args]}. */
public final class Main {
    private static final String USAGE = """
            usage: java -jar samples/target/uring-samples.jar <sample> [args]
              probe               what this kernel's io_uring supports
              copy SOURCE TARGET  copy a file through one ring (queue depth 32, 128 KiB blocks)
            """;

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String sample = args.length > 0 ? args[0] : "";
        try {
            switch (sample) {
                case "probe" -> System.out.print(Probe.run().report());
                case "copy" -> copy(args);
                default -> usage();
            }
        } catch (UringException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(1);
        }
    }

    private static void copy(String[] args) throws Exception {
        if (args.length != 3) {
            usage();
        }
        Path source = Path.of(args[1]);
        Path target = Path.of(args[2]);
        long start = System.nanoTime();
        long bytes = FileCopy.copy(source, target);
        double seconds = (System.nanoTime() - start) / 1e9;
        String a = sha256(source);
        String b = sha256(target);
        System.out.printf(Locale.ROOT, "copied %d bytes from %s to %s in %.1f ms (%.1f MiB/s) through io_uring%n",
                bytes, source, target, seconds * 1e3, bytes / seconds / (1 << 20));
        System.out.println("sha-256 " + a + (a.equals(b) ? " (source and copy match)" : " != " + b + " MISMATCH"));
        if (!a.equals(b)) {
            System.exit(1);
        }
    }

    private static String sha256(Path file) throws IOException, java.security.NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) > 0; ) {
                digest.update(chunk, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void usage() {
        System.err.print(USAGE);
        System.exit(2);
    }
}
