package dev.uringactors.bench;

/** {@code java -jar uring-bench.jar <command> [--option value]...}: the side-by-side benchmarks. */
public final class Main {
    private static final String USAGE = """
            usage: java -jar bench/target/uring-bench.jar <command> [options]
              nop --batch 32 --seconds 5 [--c-nop /tmp/uring-anchors/nop]
                  NOPs through one SINGLE_ISSUER|DEFER_TASKRUN ring; with --c-nop, liburing's C figure beside it
            """;

    private Main() {
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) {
            System.err.print(USAGE);
            System.exit(2);
        }
        try {
            Args args = new Args(argv, 1);
            switch (argv[0]) {
                case "nop" -> NopBench.main(args);
                default -> throw new IllegalArgumentException("unknown command: " + argv[0]);
            }
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        }
    }
}
