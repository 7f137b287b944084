package dev.uringactors.actors.internal.tcp.pekko;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How many file descriptors the process could open now, up to a few, found by opening {@code /dev/null} that many
 * times and closing them again; and, where it could open fewer, why ("Too many open files": EMFILE or ENFILE).
 */
record FreeDescriptors(int count, String failure) {
    private static final Path DEV_NULL = Path.of("/dev/null");

    static FreeDescriptors upTo(int wanted) {
        List<FileChannel> opened = new ArrayList<>(wanted);
        String failure = null;
        try {
            while (opened.size() < wanted) {
                opened.add(FileChannel.open(DEV_NULL));
            }
        } catch (IOException e) {
            failure = e.getMessage();
        } finally {
            for (FileChannel channel : opened) {
                try {
                    channel.close();
                } catch (IOException e) {
                    // a close of /dev/null that fails frees the descriptor all the same
                }
            }
        }
        return new FreeDescriptors(opened.size(), failure);
    }
}
