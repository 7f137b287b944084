package dev.uringactors.ring;

/** Calls on any file descriptor, whatever it is open on: a socket, a file, a pipe. */
public final class Descriptors {
    private Descriptors() {
    }

    /** close(2) outside a ring (setup and error paths, a ring that is gone): 0, or -errno as in a CQE. */
    public static int close(int fd) {
        return LibC.close(fd) == 0 ? 0 : LibC.negErrno();
    }
}
