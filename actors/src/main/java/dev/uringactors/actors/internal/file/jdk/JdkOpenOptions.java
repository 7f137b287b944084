package dev.uringactors.actors.internal.file.jdk;

import com.sun.nio.file.ExtendedOpenOption;
import dev.uringactors.actors.file.UringOpenOption;

import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Set;

/**
 * The options a file is opened with on the rings ({@link UringOpenOption#toFlags}), as a JDK file channel takes
 * them: the same ones are taken and refused. DIRECT is the JDK's own O_DIRECT ({@link ExtendedOpenOption#DIRECT}),
 * with the same alignment rules; REGISTERED means nothing without a ring and is dropped, as on a ring with no
 * table. The JDK refuses READ with APPEND, which open(2) takes.
 */
final class JdkOpenOptions {
    private static final Set<OpenOption> AS_THEY_ARE = Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND, StandardOpenOption.CREATE, StandardOpenOption.CREATE_NEW,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.DSYNC, StandardOpenOption.SYNC,
            LinkOption.NOFOLLOW_LINKS);
    /** A file an open creates gets mode 0644 (less the umask), as on the rings; the JDK's own default is 0666. */
    static final FileAttribute<Set<PosixFilePermission>> MODE_0644 =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--"));

    private JdkOpenOptions() {
    }

    /** The JDK's options for {@code options}; an option the rings refuse is refused with the same exception. */
    static Set<OpenOption> of(Set<? extends OpenOption> options) {
        Set<OpenOption> jdk = new HashSet<>();
        for (OpenOption o : options) {
            if (AS_THEY_ARE.contains(o)) {
                jdk.add(o);
            } else if (o == UringOpenOption.DIRECT) {
                jdk.add(ExtendedOpenOption.DIRECT);
            } else if (o != UringOpenOption.REGISTERED) {
                throw new IllegalArgumentException("open option " + o + " is not supported through io_uring");
            }
        }
        return jdk;
    }
}
