package dev.uringactors.actors.internal.tcp;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.tcp.TcpProtocol.Write;
import dev.uringactors.actors.tcp.TcpProtocol.WriteCommand;
import dev.uringactors.actors.tcp.TcpProtocol.WriteFile;
import dev.uringactors.config.UringSettings;

import java.io.EOFException;
import java.nio.channels.ClosedChannelException;
import java.util.function.Predicate;

/**
 * What a connection's write queue checks of a write before it takes it, and how it holds it: the same on a ring
 * (the connection's write queue, on a ring and under the JDK backend), so that a handler gets the same answers on both.
 */
public final class WriteRequests {
    private WriteRequests() {
    }

    /**
     * Why {@code file} cannot be taken, or null: its file is closed (by {@code isOpen}, the backend's table of
     * open files: a closed file's descriptor is not ours to use), or its arguments are wrong.
     */
    public static Exception fileRefusal(WriteFile file, Predicate<FileHandle> isOpen) {
        return isOpen.test(file.file()) ? argumentRefusal(file) : new ClosedChannelException();
    }

    /** Why {@code file}'s arguments cannot be sent (a negative position or count, or a file they do not suit), or null. */
    public static IllegalArgumentException argumentRefusal(WriteFile file) {
        if (file.position() < 0 || file.count() < 0 || file.file().direct() || file.file().registered()) {
            return new IllegalArgumentException("WriteFile of " + file.count() + " bytes at " + file.position()
                    + " of " + file.file().path() + ": the position and count must not be negative, and the file "
                    + "not opened with O_DIRECT or REGISTERED");
        }
        return null;
    }

    /**
     * Whether {@code w} would queue beyond {@code uring.tcp.max-write-queue} behind the {@code queued} bytes in
     * memory of other writes (a write on an empty queue is taken whatever its size).
     */
    public static boolean overflows(boolean othersQueued, long queued, WriteCommand w, UringSettings.Tcp tcp) {
        return othersQueued && queued + inMemory(w) > tcp.maxWriteQueue();
    }

    /** The refusal of a write that {@link #overflows} the queue holding {@code queued} bytes. */
    public static IllegalStateException queueFull(long queued, UringSettings.Tcp tcp) {
        return new IllegalStateException("write queue full: " + queued + " bytes wait to be sent "
                + "(uring.tcp.max-write-queue = " + tcp.maxWriteQueue() + "); wait for acknowledgements before "
                + "writing more");
    }

    /**
     * {@code w} as it is queued: a WriteFile of no bytes becomes a Write of its header (its file, if it owns it,
     * is the caller's to give back), any other write is itself.
     */
    public static WriteCommand headerOnly(WriteCommand w) {
        return w instanceof WriteFile file && file.count() == 0 ? new Write(file.header(), file.ack()) : w;
    }

    /** The bytes of {@code w} held in memory: a Write's data, a WriteFile's header (its file part is not). */
    public static long inMemory(WriteCommand w) {
        return w instanceof Write write ? write.data().size() : ((WriteFile) w).header().size();
    }

    /** Why {@code file} failed when its file ended after {@code fileSent} of its bytes, short of its count. */
    public static EOFException fileEnded(WriteFile file, long fileSent) {
        return new EOFException(file.file().path() + ": the file ended at byte " + (file.position() + fileSent)
                + ", short of the " + file.count() + " bytes from " + file.position() + " that were to be sent");
    }
}
