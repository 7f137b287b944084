package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.file.FileStat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link FileStat} from the JDK's "unix" file attributes. The JDK gives no block size per file, only its file
 * system's ({@link java.nio.file.FileStore#getBlockSize}), which is what statx says for the usual file systems;
 * it is looked up once per device, since finding a path's file store reads the mount table.
 */
final class JdkStat {
    private static final Map<Long, Integer> BLOCK_SIZES = new ConcurrentHashMap<>();

    private JdkStat() {
    }

    /**
     * The stat of the file at {@code path} (symlinks followed, as STATX does, unless {@code options} says
     * NOFOLLOW_LINKS); the JDK's failure as it is, for the caller to map ({@link JdkErrors}).
     */
    static FileStat of(Path path, LinkOption... options) throws IOException {
        Map<String, Object> a = Files.readAttributes(path, "unix:mode,size,lastModifiedTime,dev", options);
        long dev = (Long) a.get("dev");
        Integer blockSize = BLOCK_SIZES.get(dev);
        if (blockSize == null) {
            blockSize = (int) Files.getFileStore(path).getBlockSize();
            BLOCK_SIZES.put(dev, blockSize);
        }
        return new FileStat((Long) a.get("size"), (Integer) a.get("mode"),
                ((FileTime) a.get("lastModifiedTime")).toInstant(), blockSize);
    }
}
