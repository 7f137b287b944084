package dev.uringactors.ring;

/** A pipe(2) for tests: reads on it stay in flight until something is written. */
final class Pipe implements AutoCloseable {
    final int readFd;
    final int writeFd;

    Pipe() {
        int[] fds = new int[2];
        if (LibC.pipe2(fds, LibC.O_CLOEXEC) != 0) {
            throw new UringException("pipe2", -LibC.negErrno(), null);
        }
        readFd = fds[0];
        writeFd = fds[1];
    }

    @Override
    public void close() {
        LibC.close(readFd);
        LibC.close(writeFd);
    }
}
