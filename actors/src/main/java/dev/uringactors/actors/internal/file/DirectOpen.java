package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.ring.PolledIo.DeviceNumber;
import dev.uringactors.ring.PolledIo.DeviceQueue;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * An O_DIRECT open while {@code uring.iopoll} is on, whose ring depends on the file's block device. That device
 * is known for sure only once the file is open (a symlink, a mount, a file just created): so the file is opened as
 * a plain one, a STATX of the new fd gives its device, and that device's poll queues, known already or learnt off
 * the ring ({@link DeviceQueues}), decide: the file is answered as a polled or a plain file, or refused and closed.
 * Each step runs on the ring's thread, none blocks it, and the request is answered once, whichever step fails.
 */
final class DirectOpen {
    private final DirectIoRouter router;
    private final RingLoop loop;
    private final OpenFiles files;
    private final ActorRef<StatusReply<Done>> closeReplies;
    private final ActorRef<StatusReply<FileHandle>> replyTo;
    /** The file, open but not handed out yet. */
    private FileHandle file;

    /** {@code closeReplies} takes the answer to the close of a refused file: nobody waits for it. */
    DirectOpen(DirectIoRouter router, RingLoop loop, OpenFiles files, ActorRef<StatusReply<Done>> closeReplies,
               ActorRef<StatusReply<FileHandle>> replyTo) {
        this.router = router;
        this.loop = loop;
        this.files = files;
        this.closeReplies = closeReplies;
        this.replyTo = replyTo;
    }

    /** The open succeeded; the device comes next. (A failed open answers the requester itself.) */
    void opened(FileHandle file) {
        this.file = file;
        loop.issuer().issue(new FileOps.FileDevice(file, this));
    }

    /** STATX answered with the file's device: route it now if the device is known, else once it is. */
    void deviceRead(StatusReply<DeviceNumber> device) {
        if (device.isError()) {
            refuse(device.getError());
            return;
        }
        CompletableFuture<Optional<DeviceQueue>> queue;
        try {
            queue = router.queueOf(device.getValue());
        } catch (RuntimeException e) { // the executor for blocking calls refused the lookup (shutting down)
            refuse(e);
            return;
        }
        if (queue.isDone()) {
            route(queue);
        } else { // back on the ring's thread with the lookup's answer
            queue.whenCompleteAsync((known, failure) -> route(queue), loop);
        }
    }

    private void route(CompletableFuture<Optional<DeviceQueue>> queue) {
        boolean polled;
        try {
            polled = router.polled(queue.join(), file.path()) && loop.issuer().hasPolledRing();
        } catch (CompletionException e) { // the lookup failed
            refuse(e.getCause());
            return;
        } catch (RuntimeException e) { // no poll queues, and iopoll-fallback = fail
            refuse(e);
            return;
        }
        replyTo.tell(StatusReply.success(polled ? files.polled(file) : file));
    }

    private void refuse(Throwable cause) {
        if (files.closing(file)) {
            loop.issuer().issue(FileOps.closeFile(file, closeReplies));
        }
        replyTo.tell(StatusReply.error(cause));
    }
}
