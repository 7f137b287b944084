package dev.uringactors.ring;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a command line for a child JVM, as the README tells users to start theirs: this JDK's java, and on
 * JDK 23 and later the options it needs to start without warnings (JNA loads native code; Pekko uses
 * {@code sun.misc.Unsafe}'s memory access, which JDK 24 and later warn of). A test that reads what a child prints
 * would otherwise read those warnings first.
 */
public final class JavaCommand {
    private JavaCommand() {
    }

    /** This JDK's java with the options, a list to add to. */
    public static List<String> java() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options());
        return command;
    }

    /** The options: none before JDK 23 (where the second does not exist). */
    public static List<String> options() {
        return Runtime.version().feature() >= 23
                ? List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow")
                : List.of();
    }
}
