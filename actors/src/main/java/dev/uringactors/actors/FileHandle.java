package dev.uringactors.actors;

import java.nio.file.Path;

/**
 * An open file: its descriptor, the path it was opened by, whether it was opened with O_DIRECT, and the ring it
 * was opened on (requests for it go there, so that its completions stay on one thread). Close it with
 * {@link RingProtocol.Close}.
 */
public record FileHandle(int fd, Path path, boolean direct, int ring) {
}
