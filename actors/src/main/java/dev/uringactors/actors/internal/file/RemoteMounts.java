package dev.uringactors.actors.internal.file;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Where the file systems are mounted whose stat may have to ask a server (NFS, SMB, FUSE, 9p, Ceph...), read from
 * /proc/self/mountinfo when the file actors start. A ring's thread stats a file it has just opened directly only
 * where none of them can be reached; beneath them the ring's STATX asks, in a kernel worker. A file system mounted
 * after the start is not seen; where mountinfo cannot be read, every directory counts as remote.
 */
final class RemoteMounts {
    private static final Logger log = LoggerFactory.getLogger(RemoteMounts.class);
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
    private static final Set<String> REMOTE = Set.of("nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "9p", "ceph",
            "glusterfs", "afs", "coda", "lustre", "gfs2", "ocfs2", "orangefs", "beegfs", "gpfs", "davfs", "virtiofs");

    /** The mount points of remote file systems; null when they could not be read. */
    private final List<Path> mountPoints;

    RemoteMounts(List<Path> mountPoints) {
        this.mountPoints = mountPoints;
    }

    /** This process's remote mounts, as /proc/self/mountinfo lists them now. */
    static RemoteMounts read() {
        try {
            return new RemoteMounts(parse(Files.readAllLines(MOUNTINFO)));
        } catch (IOException | RuntimeException e) {
            log.info("{} could not be read ({}): files opened with their stat are statted by the ring's STATX",
                    MOUNTINFO, e.toString());
            return new RemoteMounts(null);
        }
    }

    /** The mount points of the remote file systems in mountinfo's {@code lines}. */
    static List<Path> parse(List<String> lines) {
        List<Path> remote = new ArrayList<>();
        for (String line : lines) {
            int separator = line.indexOf(" - ");
            String[] fields = line.substring(0, separator).split(" ");
            String type = line.substring(separator + 3).split(" ")[0];
            if (REMOTE.contains(type) || type.startsWith("fuse")) {
                remote.add(Path.of(unescape(fields[4])));
            }
        }
        return List.copyOf(remote);
    }

    /** Whether a file beneath {@code directory} may be on a remote file system: in one, or one mounted inside it. */
    boolean reachableFrom(Path directory) {
        if (mountPoints == null) {
            return true;
        }
        Path absolute = directory.toAbsolutePath().normalize();
        for (Path mountPoint : mountPoints) {
            if (absolute.startsWith(mountPoint) || mountPoint.startsWith(absolute)) {
                return true;
            }
        }
        return false;
    }

    /** mountinfo writes a space, tab, newline and backslash in a path as an octal escape: \040 and so on. */
    private static String unescape(String field) {
        StringBuilder path = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length()) {
                path.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                path.append(c);
            }
        }
        return path.toString();
    }
}
