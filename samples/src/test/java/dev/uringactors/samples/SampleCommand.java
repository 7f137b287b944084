package dev.uringactors.samples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A sample run in this JVM as its command line runs it, with what it writes on standard error caught. */
final class SampleCommand {
    /** The exit status, and what the sample wrote on standard error. */
    record Outcome(int status, String errors) {
    }

    private SampleCommand() {
    }

    /** {@code args} as {@code Main} takes them; returns when the sample has ended (a server: when it stopped). */
    static Outcome run(String... args) {
        PrintStream stderr = System.err;
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
        try {
            return new Outcome(Main.run(args), errors.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(stderr);
        }
    }
}
