package dev.uringactors.actors;

import java.nio.file.Path;

/**
 * An open file: its descriptor, the path it was opened by, whether it was opened with O_DIRECT, whether its
 * reads and writes go through the ring's IOPOLL companion ring (polled completions), and the ring it was opened
 * on (requests for it go there, so that its completions stay on one thread). Close it with
 * {@link RingProtocol.Close}.
 */
public record FileHandle(int fd, Path path, boolean direct, boolean polled, int ring) {
}
