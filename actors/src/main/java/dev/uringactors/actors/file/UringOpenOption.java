package dev.uringactors.actors.file;

import dev.uringactors.ring.OpFlags;

import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/** Open options beyond {@link StandardOpenOption}, and how a set of options becomes open(2) flags. */
public enum UringOpenOption implements OpenOption {
    /** O_DIRECT: bypass the page cache; offsets, lengths and buffers must be block-aligned. */
    DIRECT,
    /**
     * Open into the ring's registered file table ({@code uring.files.registered-slots}, direct descriptors,
     * 5.15): requests skip looking up the file; the handle works on the ring that opened it only, and cannot be
     * given to a connection ({@code WriteFile}), to {@link FileStat#of} or to {@link RingProtocol.StatFile}. Where
     * the ring has no table, and for an O_DIRECT file while {@code uring.iopoll} is on, the file is opened as usual.
     */
    REGISTERED;

    /** The open(2) flags; READ is assumed when neither READ nor WRITE nor APPEND is given. */
    public static int toFlags(Set<? extends OpenOption> options) {
        boolean write = options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
        boolean read = options.contains(StandardOpenOption.READ) || !write;
        int flags = read && write ? OpFlags.O_RDWR : write ? OpFlags.O_WRONLY : OpFlags.O_RDONLY;
        for (OpenOption o : options) {
            if (o == StandardOpenOption.READ || o == StandardOpenOption.WRITE) {
                continue;
            }
            if (o == StandardOpenOption.APPEND) {
                flags |= OpFlags.O_APPEND;
            } else if (o == StandardOpenOption.CREATE) {
                flags |= OpFlags.O_CREAT;
            } else if (o == StandardOpenOption.CREATE_NEW) {
                flags |= OpFlags.O_CREAT | OpFlags.O_EXCL;
            } else if (o == StandardOpenOption.TRUNCATE_EXISTING) {
                flags |= write ? OpFlags.O_TRUNC : 0;
            } else if (o == StandardOpenOption.DSYNC) {
                flags |= OpFlags.O_DSYNC;
            } else if (o == StandardOpenOption.SYNC) {
                flags |= OpFlags.O_SYNC;
            } else if (o == java.nio.file.LinkOption.NOFOLLOW_LINKS) {
                flags |= OpFlags.oNoFollow();
            } else if (o == DIRECT) {
                flags |= OpFlags.oDirect();
            } else if (o == REGISTERED) {
                continue; // where the file goes, not how it is opened
            } else {
                throw new IllegalArgumentException("open option " + o + " is not supported through io_uring");
            }
        }
        return flags | OpFlags.O_CLOEXEC;
    }
}
