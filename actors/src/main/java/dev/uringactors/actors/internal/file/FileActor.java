package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.RingFailedException;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.RingProtocol.Close;
import dev.uringactors.actors.file.RingProtocol.Command;
import dev.uringactors.actors.file.RingProtocol.Fsync;
import dev.uringactors.actors.file.RingProtocol.Nop;
import dev.uringactors.actors.file.RingProtocol.Open;
import dev.uringactors.actors.file.RingProtocol.OpenBeneath;
import dev.uringactors.actors.file.RingProtocol.OpenBeneathWithStat;
import dev.uringactors.actors.file.RingProtocol.ReadAll;
import dev.uringactors.actors.file.RingProtocol.Read;
import dev.uringactors.actors.file.RingProtocol.ReadBatch;
import dev.uringactors.actors.file.RingProtocol.ReadWith;
import dev.uringactors.actors.file.RingProtocol.Stat;
import dev.uringactors.actors.file.RingProtocol.StatFile;
import dev.uringactors.actors.file.RingProtocol.Write;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.actors.internal.issue.RingIssuer;
import dev.uringactors.actors.internal.issue.RingOp;
import dev.uringactors.actors.internal.loop.RingLoop;
import dev.uringactors.actors.internal.loop.RingSupervisor;
import dev.uringactors.config.UringSettings;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Sqe;
import dev.uringactors.ring.SqeFlags;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;

import java.nio.channels.ClosedChannelException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The file protocol of one ring, running on that ring's loop thread: it checks each request, turns it into a
 * ring op, and the issuer answers it when its completion arrives. Requests in flight when the ring fails are
 * answered with a {@link RingFailedException} by the issuer; once the ring stays closed, every request is
 * refused at once with that failure (and a close still closes the fd). The ring's lifecycle is the
 * {@link RingSupervisor}'s: this actor's registered file table is a resource of the ring, registered with each of
 * its generations and forgetting its files when one goes.
 */
final class FileActor {
    @SuppressWarnings("unchecked") // the class of a generic record, for the behavior builder
    private static final Class<ReadWith<?>> READ_WITH = (Class<ReadWith<?>>) (Class<?>) ReadWith.class;
    private final RingLoop loop;
    private final RingIssuer issuer;
    private final OpenFiles openFiles;
    private final DirectIoRouter directFiles;
    /** Takes the answers to closes that nobody waits for. */
    private final ActorRef<StatusReply<Done>> ignored;
    /** The ring's registered file table; the files opened into it are forgotten when it goes with its ring. */
    private final RegisteredFileTable fileTable;
    /** Where a stat may ask a server: there the ring's STATX takes it, not the ring's thread. */
    private final RemoteMounts remoteMounts;

    private FileActor(RingLoop loop, OpenFiles openFiles, DeviceQueues devices, RemoteMounts remoteMounts,
                      ActorRef<StatusReply<Done>> ignored) {
        this.loop = loop;
        this.issuer = loop.issuer();
        this.openFiles = openFiles;
        this.remoteMounts = remoteMounts;
        UringSettings settings = loop.settings();
        this.directFiles = new DirectIoRouter(settings.iopoll(), settings.iopollFallback(), devices);
        this.ignored = ignored;
        this.fileTable = new RegisteredFileTable(settings.registeredFileSlots(),
                () -> openFiles.forgetRegistered(loop.index()));
    }

    /**
     * Spawn it on {@code loop}'s dispatcher; {@code openFiles} is the table of every ring's files, {@code devices}
     * what every ring knows of the block devices' poll queues, {@code remoteMounts} where remote file systems are.
     */
    static Behavior<Command> create(RingLoop loop, OpenFiles openFiles, DeviceQueues devices,
                                    RemoteMounts remoteMounts) {
        return Behaviors.setup(ctx -> {
            FileActor actor = new FileActor(loop, openFiles, devices, remoteMounts, ctx.getSystem().ignoreRef());
            actor.issuer.attach(actor.fileTable);
            return actor.behavior();
        });
    }

    private Behavior<Command> behavior() {
        return Behaviors.receive(Command.class)
                .onMessage(Nop.class, m -> issue(FileOps.done(Opcode.NOP, null, Sqe::prepNop, m.replyTo())))
                .onMessage(Open.class, m -> open(m.path(), m.options(), m.replyTo(), null))
                .onMessage(OpenBeneath.class, m -> open(m.path(), m.options(), m.replyTo(), m.directory()))
                .onMessage(OpenBeneathWithStat.class, this::openWithStat)
                .onMessage(Read.class, this::read)
                .onMessage(READ_WITH, this::readWith)
                .onMessage(ReadBatch.class, this::readBatch)
                .onMessage(ReadAll.class, m -> issue(new FileOps.ReadAll(m.path(), issuer.maxIoSize(),
                        remoteMounts.reachableFrom(m.path()), m.replyTo())))
                .onMessage(Write.class, this::write)
                .onMessage(Fsync.class, this::fsync)
                .onMessage(Stat.class, m -> issue(new FileOps.Stat(m.path(), m.replyTo())))
                .onMessage(StatFile.class, this::statFile)
                .onMessage(Close.class, this::close)
                .build();
    }

    private Behavior<Command> issue(RingOp op) {
        issuer.issue(op);
        return Behaviors.same();
    }

    /** Opens {@code path}, or with a {@code directory} opens it only beneath that directory. */
    private Behavior<Command> open(Path path, Set<? extends OpenOption> options,
                                   ActorRef<StatusReply<FileHandle>> replyTo, FileHandle directory) {
        Integer flags = openFlags(directory, options, replyTo);
        if (flags == null) {
            return Behaviors.same();
        }
        boolean direct = options.contains(UringOpenOption.DIRECT);
        // An O_DIRECT file's ring is decided by its device once it is open (DirectOpen), so it is not opened into
        // the table: the IOPOLL ring has none.
        DirectOpen routing = direct && directFiles.routes()
                ? new DirectOpen(directFiles, loop, openFiles, ignored, replyTo) : null;
        boolean registered = options.contains(UringOpenOption.REGISTERED) && fileTable.available() && routing == null;
        return issue(directory == null
                ? FileOps.Open.of(path, flags, direct, registered, loop.index(), openFiles, replyTo, routing)
                : FileOps.Open.beneath(directory, path, flags, direct, registered, loop.index(), openFiles,
                        replyTo, routing));
    }

    /**
     * Opens beneath a directory, and answers with the file and its stat: taken directly as the open completes,
     * unless a remote file system can be reached from the directory, whose stat may ask a server.
     */
    private Behavior<Command> openWithStat(OpenBeneathWithStat m) {
        Integer flags = openFlags(m.directory(), m.options(), m.replyTo());
        if (flags == null) {
            return Behaviors.same();
        }
        Consumer<FileHandle> statxAfter = remoteMounts.reachableFrom(m.directory().path())
                ? file -> issuer.issue(new FileOps.StatOpened(file, openFiles,
                        opened -> issuer.issue(FileOps.closeFile(opened, ignored)), m.replyTo()))
                : null;
        return issue(FileOps.Open.beneathWithStat(m.directory(), m.path(), flags,
                m.options().contains(UringOpenOption.DIRECT), loop.index(), openFiles, m.replyTo(), statxAfter));
    }

    /** The flags of an open with {@code options}, or null once {@code replyTo} is told why it cannot be made. */
    private <T> Integer openFlags(FileHandle directory, Set<? extends OpenOption> options,
                                  ActorRef<StatusReply<T>> replyTo) {
        if (directory != null && !isOpen(directory)) {
            reject(replyTo, new ClosedChannelException());
            return null;
        }
        try {
            return UringOpenOption.toFlags(options);
        } catch (RuntimeException e) { // bad options
            reject(replyTo, e);
            return null;
        }
    }

    /**
     * Whether {@code file} is still open: a closed handle (or a copy of one) reaches no file, nor does a registered
     * file's handle on a ring other than its own (whose table has no such entry).
     */
    private boolean isOpen(FileHandle file) {
        return openFiles.isOpen(file);
    }

    private Behavior<Command> fsync(Fsync m) {
        if (!isOpen(m.file())) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        FileHandle file = m.file();
        int flags = file.registered() ? SqeFlags.FIXED_FILE : 0;
        return issue(FileOps.done(Opcode.FSYNC, file.path().toString(), sqe -> sqe.prepFsync(file.fd(),
                m.dataOnly() ? OpFlags.FSYNC_DATASYNC : 0).flags(flags), m.replyTo()));
    }

    private Behavior<Command> statFile(StatFile m) {
        if (!isOpen(m.file())) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        if (m.file().registered()) {
            return reject(m.replyTo(), new IllegalArgumentException(m.file().path()
                    + " is a registered file: STATX takes a descriptor, not a slot of the ring's table"));
        }
        return issue(new FileOps.Stat(m.file(), m.replyTo()));
    }

    private Behavior<Command> close(Close m) {
        return openFiles.closing(m.file()) ? issue(FileOps.closeFile(m.file(), m.replyTo()))
                : reject(m.replyTo(), new ClosedChannelException());
    }

    private Behavior<Command> read(Read m) {
        Exception refused = readRefusal(m.file(), m.position(), m.length());
        return refused != null ? reject(m.replyTo(), refused)
                : issue(new FileOps.Read(m.file(), m.position(), m.length(), m.replyTo()));
    }

    private <T> Behavior<Command> readWith(ReadWith<T> m) {
        Exception refused = readRefusal(m.file(), m.position(), m.length());
        return refused != null ? reject(m.replyTo(), refused) : issue(new FileOps.ReadWith<>(m.file(), m.position(),
                m.length(), m.reader(), m.replyTo()));
    }

    /** Why a read of {@code length} bytes at {@code position} of {@code file} is refused, or null. */
    private Exception readRefusal(FileHandle file, long position, int length) {
        return isOpen(file) ? FileRequests.readRefusal(position, length, issuer.maxIoSize())
                : new ClosedChannelException();
    }

    private Behavior<Command> readBatch(ReadBatch m) {
        if (!isOpen(m.file())) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        IllegalArgumentException refused = FileRequests.batchRefusal(m.positions(), m.length(), issuer.maxIoSize());
        if (refused != null) {
            return reject(m.replyTo(), refused);
        }
        if (m.positions().length == 0) {
            m.replyTo().tell(StatusReply.success(List.of()));
            return Behaviors.same();
        }
        BatchAnswer answer = new BatchAnswer(m.positions().length, m.replyTo());
        for (int i = 0; i < m.positions().length; i++) {
            issuer.issue(new FileOps.BatchRead(m.file(), m.positions()[i], m.length(), answer, i));
        }
        return Behaviors.same();
    }

    private Behavior<Command> write(Write m) {
        if (!isOpen(m.file())) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        IllegalArgumentException refused = FileRequests.writeRefusal(m.position(), m.data().size(),
                issuer.maxIoSize());
        return refused != null ? reject(m.replyTo(), refused)
                : issue(new FileOps.Write(m.file(), m.position(), m.data(), m.replyTo()));
    }

    private static <T> Behavior<Command> reject(ActorRef<StatusReply<T>> replyTo, Exception e) {
        replyTo.tell(StatusReply.error(e));
        return Behaviors.same();
    }
}
