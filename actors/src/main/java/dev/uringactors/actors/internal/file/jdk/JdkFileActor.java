package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.RingFailedException;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.RingProtocol.Close;
import dev.uringactors.actors.file.RingProtocol.Command;
import dev.uringactors.actors.file.RingProtocol.Fsync;
import dev.uringactors.actors.file.RingProtocol.Nop;
import dev.uringactors.actors.file.RingProtocol.Open;
import dev.uringactors.actors.file.RingProtocol.OpenBeneath;
import dev.uringactors.actors.file.RingProtocol.Read;
import dev.uringactors.actors.file.RingProtocol.ReadBatch;
import dev.uringactors.actors.file.RingProtocol.ReadWith;
import dev.uringactors.actors.file.RingProtocol.Stat;
import dev.uringactors.actors.file.RingProtocol.StatFile;
import dev.uringactors.actors.file.RingProtocol.Write;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.actors.internal.file.FileRequests;
import dev.uringactors.ring.Opcode;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;
import scala.util.control.NonFatal;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The file protocol on the JDK backend: the requests and answers of a ring's file actor, carried out with JDK
 * file channels on the dispatcher for blocking file I/O ({@code uring.jdk.file-dispatcher}). The actor checks
 * each request at once, as the ring's does, takes its file for it ({@link JdkOpenFile}), and hands the call to
 * that dispatcher, whose thread answers; each request is answered once, also when the dispatcher refuses it.
 */
final class JdkFileActor {
    @SuppressWarnings("unchecked") // the class of a generic record, for the behavior builder
    private static final Class<ReadWith<?>> READ_WITH = (Class<ReadWith<?>>) (Class<?>) ReadWith.class;
    private final int index;
    private final JdkOpenFiles files;
    private final Executor io;
    private final int maxIoSize;
    /** Logs, once for the system, that REGISTERED is dropped. */
    private final Runnable registeredIgnored;

    private JdkFileActor(int index, JdkOpenFiles files, Executor io, int maxIoSize, Runnable registeredIgnored) {
        this.index = index;
        this.files = files;
        this.io = io;
        this.maxIoSize = maxIoSize;
        this.registeredIgnored = registeredIgnored;
    }

    /** File actor {@code index}: its handles send their requests here; the calls run on {@code io}. */
    static Behavior<Command> create(int index, JdkOpenFiles files, Executor io, int maxIoSize,
                                    Runnable registeredIgnored) {
        return new JdkFileActor(index, files, io, maxIoSize, registeredIgnored).behavior();
    }

    private Behavior<Command> behavior() {
        return Behaviors.receive(Command.class)
                .onMessage(Nop.class, m -> answer(m.replyTo(), Done.getInstance()))
                .onMessage(Open.class, this::open)
                .onMessage(OpenBeneath.class, this::openBeneath)
                .onMessage(Read.class, this::read)
                .onMessage(READ_WITH, this::readWith)
                .onMessage(ReadBatch.class, this::readBatch)
                .onMessage(Write.class, this::write)
                .onMessage(Fsync.class, this::fsync)
                .onMessage(Stat.class, m -> call(m.replyTo(), Opcode.STATX, m.path(), null,
                        () -> JdkStat.of(m.path())))
                .onMessage(StatFile.class, m -> onFile(m.file(), m.replyTo(), Opcode.STATX, null,
                        JdkOpenFile::stat))
                .onMessage(Close.class, this::close)
                .build();
    }

    private Behavior<Command> open(Open m) {
        boolean direct = m.options().contains(UringOpenOption.DIRECT);
        return withOptions(m.options(), m.replyTo(), options -> call(m.replyTo(), Opcode.OPENAT, m.path(), null,
                () -> files.opened(JdkFileCalls.open(m.path(), options), m.path(), direct, index)));
    }

    private Behavior<Command> openBeneath(OpenBeneath m) {
        boolean direct = m.options().contains(UringOpenOption.DIRECT);
        Path shown = m.directory().path().resolve(m.path());
        return withOptions(m.options(), m.replyTo(), options -> onFile(m.directory(), m.replyTo(), Opcode.OPENAT2,
                shown, directory -> files.opened(JdkFileCalls.openBeneath(m.directory().path(), m.path(), options,
                        shown.toString()), shown, direct, index)));
    }

    /**
     * {@code open} with the JDK's options for a request's, or the request refused when they are wrong;
     * REGISTERED, which means nothing here, is said once.
     */
    private Behavior<Command> withOptions(Set<? extends OpenOption> requested,
                                          ActorRef<StatusReply<FileHandle>> replyTo,
                                          Function<Set<OpenOption>, Behavior<Command>> open) {
        if (requested.contains(UringOpenOption.REGISTERED)) {
            registeredIgnored.run();
        }
        Set<OpenOption> options;
        try {
            options = JdkOpenOptions.of(requested);
        } catch (IllegalArgumentException e) {
            return reject(replyTo, e);
        }
        return open.apply(options);
    }

    private Behavior<Command> read(Read m) {
        IllegalArgumentException refused = FileRequests.readRefusal(m.position(), m.length(), maxIoSize);
        return refused != null ? refuse(m.file(), m.replyTo(), refused) : onFile(m.file(), m.replyTo(), Opcode.READ,
                null, f -> JdkFileCalls.read(f, m.position(), m.length()));
    }

    private <T> Behavior<Command> readWith(ReadWith<T> m) {
        IllegalArgumentException refused = FileRequests.readRefusal(m.position(), m.length(), maxIoSize);
        return refused != null ? refuse(m.file(), m.replyTo(), refused) : onFile(m.file(), m.replyTo(), Opcode.READ,
                null, f -> m.reader().apply(JdkFileCalls.readView(f, m.position(), m.length())));
    }

    /** The reads of a batch one after another on one thread: one answer, the first failure or all of them. */
    private Behavior<Command> readBatch(ReadBatch m) {
        IllegalArgumentException refused = FileRequests.batchRefusal(m.positions(), m.length(), maxIoSize);
        return refused != null ? refuse(m.file(), m.replyTo(), refused) : onFile(m.file(), m.replyTo(), Opcode.READ,
                null, f -> {
                    List<ByteString> results = new ArrayList<>(m.positions().length);
                    for (long position : m.positions()) {
                        results.add(JdkFileCalls.read(f, position, m.length()));
                    }
                    return results;
                });
    }

    private Behavior<Command> write(Write m) {
        IllegalArgumentException refused = FileRequests.writeRefusal(m.position(), m.data().size(), maxIoSize);
        return refused != null ? refuse(m.file(), m.replyTo(), refused) : onFile(m.file(), m.replyTo(),
                Opcode.WRITE, null, f -> JdkFileCalls.write(f, m.position(), m.data()));
    }

    private Behavior<Command> fsync(Fsync m) {
        return onFile(m.file(), m.replyTo(), Opcode.FSYNC, null, f -> {
            f.channel().force(!m.dataOnly());
            return Done.getInstance();
        });
    }

    /**
     * Closes the file once the requests taken before this close are done (the ring's CLOSE lets them complete);
     * answers then. The close is not refused, even by a dispatcher that is shutting down.
     */
    private Behavior<Command> close(Close m) {
        JdkOpenFile file = files.closing(m.file());
        if (file == null) {
            return reject(m.replyTo(), new ClosedChannelException());
        }
        Runnable close = () -> file.closeWhenUnused().whenComplete((v, e) -> m.replyTo().tell(e == null
                ? StatusReply.success(Done.getInstance())
                : StatusReply.error(JdkErrors.of(Opcode.CLOSE, m.file().path().toString(), (Exception) e))));
        try {
            io.execute(close);
        } catch (RejectedExecutionException e) {
            close.run();
        }
        return Behaviors.same();
    }

    /**
     * Runs {@code call} on the open {@code file}, taken for it and given back after; a closed file is refused with
     * a {@link ClosedChannelException}. {@code target} names the call in errors, the file's path when null.
     */
    private <T> Behavior<Command> onFile(FileHandle file, ActorRef<StatusReply<T>> replyTo, Opcode op, Path target,
                                         FileCall<T> call) {
        JdkOpenFile open = files.use(file);
        if (open == null) {
            return reject(replyTo, new ClosedChannelException());
        }
        return call(replyTo, op, target != null ? target : file.path(), open, () -> call.run(open));
    }

    /**
     * Runs {@code call} on the I/O dispatcher and answers with its result or its failure: the JDK's as the ring's
     * would be ({@link JdkErrors}), any other as it is (a reader's, also an {@link Error} such as a failed assert;
     * not the JVM's own, which {@link NonFatal} tells apart). {@code taken} is released after it.
     */
    private <T> Behavior<Command> call(ActorRef<StatusReply<T>> replyTo, Opcode op, Path target, JdkOpenFile taken,
                                       Call<T> call) {
        try {
            io.execute(() -> {
                StatusReply<T> reply;
                try {
                    reply = StatusReply.success(call.run());
                } catch (IOException | NonReadableChannelException | NonWritableChannelException e) {
                    reply = StatusReply.error(JdkErrors.of(op, target.toString(), e));
                } catch (RuntimeException | Error e) { // a reader's bug, answered as the ring answers it
                    if (!NonFatal.apply(e)) {
                        throw e; // the JVM's own trouble (out of memory, a class that cannot load): not the call's
                    }
                    reply = StatusReply.error(e);
                } finally {
                    if (taken != null) {
                        taken.release();
                    }
                }
                replyTo.tell(reply);
            });
        } catch (RejectedExecutionException e) { // the dispatcher is shutting down with the system
            if (taken != null) {
                taken.release();
            }
            replyTo.tell(StatusReply.error(new RingFailedException(index, e)));
        }
        return Behaviors.same();
    }

    /** A refused request with the file it names: a closed file is refused as such first, as on the ring. */
    private <T> Behavior<Command> refuse(FileHandle file, ActorRef<StatusReply<T>> replyTo, Exception refused) {
        return reject(replyTo, files.isOpen(file) ? refused : new ClosedChannelException());
    }

    private static <T> Behavior<Command> answer(ActorRef<StatusReply<T>> replyTo, T value) {
        replyTo.tell(StatusReply.success(value));
        return Behaviors.same();
    }

    private static <T> Behavior<Command> reject(ActorRef<StatusReply<T>> replyTo, Exception e) {
        replyTo.tell(StatusReply.error(e));
        return Behaviors.same();
    }

    /** A blocking call of the JDK's. */
    private interface Call<T> {
        T run() throws IOException;
    }

    /** A blocking call on an open file. */
    private interface FileCall<T> {
        T run(JdkOpenFile file) throws IOException;
    }
}
