package dev.uringactors.samples;

import dev.uringactors.ring.Errno;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.Statx;
import dev.uringactors.ring.UringException;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Requests issued one at a time through a ring this thread owns, each awaited. A failure is a
 * {@link UringException} that names the op, the file as the user knows it, and the errno.
 */
final class RingCalls {
    /** user_data of a request issued and awaited alone; a {@link BlockCopy}'s are below 2^33. */
    static final long SINGLE = 1L << 33;
    /** statx(2): a symbolic link itself, not what it leads to. */
    private static final int AT_SYMLINK_NOFOLLOW = 0x100;
    private final Ring ring;

    RingCalls(Ring ring) {
        this.ring = ring;
    }

    /** STATX of {@code path}, following links; {@code named} is how an error names it. */
    PathStat stat(Path path, String named) {
        return statIfExists(path, true, named).orElseThrow(() ->
                UringException.ofResult(Opcode.STATX, -Errno.ENOENT, named, ring.setupFlags()));
    }

    /** STATX of {@code path} (of a link itself unless {@code followLinks}); empty where there is nothing (ENOENT). */
    Optional<PathStat> statIfExists(Path path, boolean followLinks, String named) {
        try (NativeBuffer statx = NativeBuffer.allocate(Statx.SIZE);
             NativeBuffer p = NativeBuffer.ofString(path.toString())) {
            int res = await(ring.nextSqe().prepStatx(OpFlags.AT_FDCWD, p.address(),
                    followLinks ? 0 : AT_SYMLINK_NOFOLLOW, OpFlags.STATX_BASIC_STATS, statx.address()));
            if (res == -Errno.ENOENT) {
                return Optional.empty();
            }
            checked(res, Opcode.STATX, named);
            return Optional.of(PathStat.of(statx));
        }
    }

    /** STATX of an open file. */
    PathStat stat(int fd, String named) {
        try (NativeBuffer statx = NativeBuffer.allocate(Statx.SIZE); NativeBuffer empty = NativeBuffer.ofString("")) {
            checked(await(ring.nextSqe().prepStatx(fd, empty.address(), OpFlags.AT_EMPTY_PATH,
                    OpFlags.STATX_BASIC_STATS, statx.address())), Opcode.STATX, named);
            return PathStat.of(statx);
        }
    }

    /** OPENAT relative to the working directory; returns the fd. */
    int open(Path path, int flags, int mode, String named) {
        try (NativeBuffer p = NativeBuffer.ofString(path.toString())) {
            return checked(await(ring.nextSqe().prepOpenat(OpFlags.AT_FDCWD, p.address(), flags, mode)),
                    Opcode.OPENAT, named);
        }
    }

    void fsync(int fd, String named) {
        checked(await(ring.nextSqe().prepFsync(fd, 0)), Opcode.FSYNC, named);
    }

    void close(int fd, String named) {
        checked(await(ring.nextSqe().prepClose(fd)), Opcode.CLOSE, named);
    }

    /**
     * Submits the one request just prepared and returns its result. After a failed copy, completions of the
     * copy's own requests may still arrive: they are not this request's answer.
     */
    private int await(Sqe prepared) {
        prepared.userData(SINGLE);
        int[] result = {0};
        boolean[] answered = {false};
        while (!answered[0]) {
            ring.submitAndWait(1);
            ring.reap((userData, res, flags) -> {
                if (userData == SINGLE) {
                    result[0] = res;
                    answered[0] = true;
                }
            });
        }
        return result[0];
    }

    private int checked(int res, Opcode op, String named) {
        if (res < 0) {
            throw UringException.ofResult(op, res, named, ring.setupFlags());
        }
        return res;
    }
}
