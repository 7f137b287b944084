package dev.uringactors.actors;

import dev.uringactors.actors.RingProtocol.Close;
import dev.uringactors.actors.RingProtocol.Command;
import dev.uringactors.actors.RingProtocol.Fsync;
import dev.uringactors.actors.RingProtocol.GetStats;
import dev.uringactors.actors.RingProtocol.Nop;
import dev.uringactors.actors.RingProtocol.Open;
import dev.uringactors.actors.RingProtocol.OpenBeneath;
import dev.uringactors.actors.RingProtocol.Read;
import dev.uringactors.actors.RingProtocol.ReadBatch;
import dev.uringactors.actors.RingProtocol.RingFault;
import dev.uringactors.actors.RingProtocol.Stat;
import dev.uringactors.actors.RingProtocol.Write;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.SqeFlags;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;

import java.nio.channels.ClosedChannelException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The single issuer of one ring, running on that ring's loop thread: it turns requests into ring ops and the
 * issuer answers each when its completion arrives. When the ring fails, supervision restarts the actor; before
 * the restart every request in flight is answered with a {@link RingFailedException}, the ring is drained and
 * closed, and a new ring takes its place. After more than {@code maxRestarts} failures within {@code within}
 * the ring stays closed, and the actor answers every request at once with a failure, so that no ask waits
 * for a ring that is gone.
 */
final class RingActor {
    private final RingLoop loop;
    private final RingIssuer issuer;
    private final Duration drainTimeout;
    private final RestartBudget restarts;
    private Throwable lastFault;

    private RingActor(RingLoop loop, ActorRef<Command> self, Duration drainTimeout, RestartBudget restarts) {
        this.loop = loop;
        this.issuer = loop.issuer();
        this.drainTimeout = drainTimeout;
        this.restarts = restarts;
        issuer.onFault(cause -> self.tell(new RingFault(cause, issuer.generation())));
    }

    static Behavior<Command> create(RingLoop loop, Duration drainTimeout, int maxRestarts, Duration within) {
        RestartBudget restarts = new RestartBudget(maxRestarts, within);
        return Behaviors.supervise(Behaviors.<Command>setup(ctx -> restarts.exhausted()
                        ? gaveUp(loop, restarts)
                        : new RingActor(loop, ctx.getSelf(), drainTimeout, restarts).behavior()))
                .onFailure(SupervisorStrategy.restart());
    }

    /** The ring failed too often and stays closed: every request is answered with a failure at once. */
    private static Behavior<Command> gaveUp(RingLoop loop, RestartBudget restarts) {
        RingFailedException gone = new RingFailedException(loop.index(), new IllegalStateException(
                "it failed more than " + restarts + " and stays closed"));
        return Behaviors.receive(Command.class)
                .onMessage(Nop.class, m -> reject(m.replyTo(), gone))
                .onMessage(Open.class, m -> reject(m.replyTo(), gone))
                .onMessage(OpenBeneath.class, m -> reject(m.replyTo(), gone))
                .onMessage(Read.class, m -> reject(m.replyTo(), gone))
                .onMessage(ReadBatch.class, m -> reject(m.replyTo(), gone))
                .onMessage(Write.class, m -> reject(m.replyTo(), gone))
                .onMessage(Fsync.class, m -> reject(m.replyTo(), gone))
                .onMessage(Stat.class, m -> reject(m.replyTo(), gone))
                .onMessage(Close.class, m -> { // the fd is closed all the same
                    if (!loop.openFiles().closing(m.file())) {
                        return reject(m.replyTo(), new ClosedChannelException());
                    }
                    new RingOps.CloseFile(m.file(), m.replyTo()).refuse(gone);
                    return Behaviors.same();
                })
                .onMessage(GetStats.class, m -> {
                    m.replyTo().tell(loop.stats());
                    return Behaviors.same();
                })
                .build();
    }

    private Behavior<Command> behavior() {
        return Behaviors.receive(Command.class)
                .onMessage(Nop.class, m -> issue(new RingOps.DoneOp(Opcode.NOP, null, Sqe::prepNop, m.replyTo())))
                .onMessage(Open.class, m -> open(m.path(), m.options(), m.replyTo(), null))
                .onMessage(OpenBeneath.class, m -> open(m.path(), m.options(), m.replyTo(), m.directory()))
                .onMessage(Read.class, this::read)
                .onMessage(ReadBatch.class, this::readBatch)
                .onMessage(Write.class, this::write)
                .onMessage(Fsync.class, this::fsync)
                .onMessage(Stat.class, m -> issue(new RingOps.Stat(m.path(), issuer.buffers(), m.replyTo())))
                .onMessage(Close.class, this::close)
                .onMessage(GetStats.class, m -> {
                    m.replyTo().tell(loop.stats());
                    return Behaviors.same();
                })
                .onMessage(RingFault.class, m -> {
                    if (m.generation() != issuer.generation()) {
                        return Behaviors.same(); // about a ring that was replaced already
                    }
                    lastFault = m.cause();
                    throw new RingFailedException(loop.index(), m.cause());
                })
                .onSignal(PreRestart.class, s -> {
                    RingFailedException failure = new RingFailedException(loop.index(), lastFault);
                    if (restarts.spend()) {
                        issuer.restart(failure, drainTimeout);
                    } else {
                        issuer.close(failure, drainTimeout); // the next incarnation answers with failures
                    }
                    loop.openFiles().forgetRegistered(loop.index()); // the old ring's table went with it
                    return Behaviors.same();
                })
                .build();
    }

    private Behavior<Command> issue(RingOp op) {
        issuer.issue(op);
        return Behaviors.same();
    }

    /** Opens {@code path}, or with a {@code directory} opens it only beneath that directory. */
    private Behavior<Command> open(Path path, Set<? extends OpenOption> options,
                                   ActorRef<StatusReply<FileHandle>> replyTo, FileHandle directory) {
        if (directory != null && !isOpen(directory)) {
            return reject(replyTo, new ClosedChannelException());
        }
        int flags;
        boolean direct = options.contains(UringOpenOption.DIRECT);
        boolean polled;
        try {
            flags = UringOpenOption.toFlags(options);
            polled = direct && loop.directFiles().polled(directory == null ? path : directory.path().resolve(path))
                    && issuer.hasPolledRing();
        } catch (RuntimeException e) { // bad options, or a device without poll queues and iopoll-fallback = fail
            return reject(replyTo, e);
        }
        // A polled file goes through the IOPOLL ring, which has no table: it is opened as usual.
        boolean registered = options.contains(UringOpenOption.REGISTERED) && issuer.hasFileTable() && !polled;
        return issue(directory == null
                ? new RingOps.Open(path, flags, direct, polled, registered, loop.index(), loop.openFiles(),
                        issuer.buffers(), replyTo)
                : RingOps.Open.beneath(directory, path, flags, direct, polled, registered, loop.index(),
                        loop.openFiles(), issuer.buffers(), replyTo));
    }

    /**
     * Whether {@code file} is still open: a closed handle (or a copy of one) reaches no file, nor does a registered
     * file's handle on a ring other than its own (whose table has no such entry).
     */
    private boolean isOpen(FileHandle file) {
        return loop.openFiles().isOpen(file);
    }

    private Behavior<Command> fsync(Fsync m) {
        if (!isOpen(m.file())) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        FileHandle file = m.file();
        int flags = file.registered() ? SqeFlags.FIXED_FILE : 0;
        return issue(new RingOps.DoneOp(Opcode.FSYNC, file.path().toString(), sqe -> sqe.prepFsync(file.fd(),
                m.dataOnly() ? OpFlags.FSYNC_DATASYNC : 0).flags(flags), m.replyTo()));
    }

    private Behavior<Command> close(Close m) {
        return loop.openFiles().closing(m.file()) ? issue(new RingOps.CloseFile(m.file(), m.replyTo()))
                : reject(m.replyTo(), new ClosedChannelException());
    }

    private Behavior<Command> read(Read m) {
        if (!isOpen(m.file())) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        if (m.length() < 0 || m.length() > issuer.maxIoSize() || m.position() < 0) {
            return reject(m.replyTo(), new IllegalArgumentException("read of " + m.length() + " bytes at "
                    + m.position() + ": the length must be 0.." + issuer.maxIoSize()
                    + " (uring.buffers.max-io-size) and the position not negative"));
        }
        return issue(new RingOps.Read(m.file(), m.position(), m.length(), issuer.buffers(), m.replyTo()));
    }

    private Behavior<Command> readBatch(ReadBatch m) {
        if (!isOpen(m.file())) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        if (m.length() < 0 || m.length() > issuer.maxIoSize() || Arrays.stream(m.positions()).anyMatch(p -> p < 0)) {
            return reject(m.replyTo(), new IllegalArgumentException("batch of " + m.positions().length
                    + " reads of " + m.length() + " bytes: the length must be 0.." + issuer.maxIoSize()
                    + " (uring.buffers.max-io-size) and no position negative"));
        }
        if (m.positions().length == 0) {
            m.replyTo().tell(StatusReply.success(List.of()));
            return Behaviors.same();
        }
        BatchAnswer answer = new BatchAnswer(m.positions().length, m.replyTo());
        for (int i = 0; i < m.positions().length; i++) {
            issuer.issue(new RingOps.BatchRead(m.file(), m.positions()[i], m.length(), issuer.buffers(), answer, i));
        }
        return Behaviors.same();
    }

    private Behavior<Command> write(Write m) {
        if (!isOpen(m.file())) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        if (m.data().size() > issuer.maxIoSize() || m.position() < 0) {
            return reject(m.replyTo(), new IllegalArgumentException("write of " + m.data().size() + " bytes at "
                    + m.position() + ": at most " + issuer.maxIoSize()
                    + " bytes (uring.buffers.max-io-size), at a position that is not negative"));
        }
        return issue(new RingOps.Write(m.file(), m.position(), m.data(), issuer.buffers(), m.replyTo()));
    }

    private static <T> Behavior<Command> reject(ActorRef<StatusReply<T>> replyTo, Exception e) {
        replyTo.tell(StatusReply.error(e));
        return Behaviors.same();
    }
}
