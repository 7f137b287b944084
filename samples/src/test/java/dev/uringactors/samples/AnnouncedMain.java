package dev.uringactors.samples;

/**
 * A sample ({@link Main}) that first says it starts, so that a test can time the sample apart from the JVM's own
 * launch, which a loaded machine can make take seconds.
 */
final class AnnouncedMain {
    /** The line it prints as the sample starts. */
    static final String STARTING = "the sample starts";

    private AnnouncedMain() {
    }

    public static void main(String[] args) {
        System.out.println(STARTING);
        Main.main(args);
    }
}
