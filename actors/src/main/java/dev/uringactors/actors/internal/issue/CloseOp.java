package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.Descriptors;
import dev.uringactors.ring.Opcode;

/**
 * CLOSE of a file or a socket. Where the ring can no longer take it, close(2) runs directly: no fd outlives its
 * owner. A registered file (its slot in the ring's table) went with the table of a ring that is gone.
 */
public final class CloseOp extends SimpleOp {
    private final int fd;
    private final boolean registered;

    /** Closes {@code fd}, or with {@code registered} the file in that slot of the ring's registered table. */
    public CloseOp(int fd, boolean registered, Admission admission, Outcome outcome) {
        super(Opcode.CLOSE, admission, sqe -> {
            if (registered) {
                sqe.prepCloseDirect(fd);
            } else {
                sqe.prepClose(fd);
            }
        }, outcome);
        this.fd = fd;
        this.registered = registered;
    }

    @Override
    protected void refuse(Throwable cause) {
        outcome().completed(registered ? 0 : Descriptors.close(fd), 0);
    }
}
