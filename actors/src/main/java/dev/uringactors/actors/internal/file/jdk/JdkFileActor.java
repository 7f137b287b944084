package dev.uringactors.actors.internal.file.jdk;

import dev.uringactors.actors.file.RingProtocol.Close;
import dev.uringactors.actors.file.RingProtocol.Command;
import dev.uringactors.actors.file.RingProtocol.Fsync;
import dev.uringactors.actors.file.RingProtocol.Nop;
import dev.uringactors.actors.file.RingProtocol.Open;
import dev.uringactors.actors.file.RingProtocol.OpenBeneath;
import dev.uringactors.actors.file.RingProtocol.OpenBeneathWithStat;
import dev.uringactors.actors.file.RingProtocol.Read;
import dev.uringactors.actors.file.RingProtocol.ReadAll;
import dev.uringactors.actors.file.RingProtocol.ReadBatch;
import dev.uringactors.actors.file.RingProtocol.ReadWith;
import dev.uringactors.actors.file.RingProtocol.Stat;
import dev.uringactors.actors.file.RingProtocol.StatFile;
import dev.uringactors.actors.file.RingProtocol.Write;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;

import java.util.concurrent.CompletionStage;

/**
 * The file protocol on the JDK backend as a ring's file actor takes it: each message becomes the same request of
 * {@link JdkFileRequests}, checked here at once and run as one task of the file dispatcher, whose thread then
 * answers {@code replyTo} itself: the actor does not see the answer. Each request is answered once.
 */
final class JdkFileActor {
    @SuppressWarnings("unchecked") // the class of a generic record, for the behavior builder
    private static final Class<ReadWith<?>> READ_WITH = (Class<ReadWith<?>>) (Class<?>) ReadWith.class;

    private JdkFileActor() {
    }

    /** File actor {@code index}: its handles send their requests here; they are carried out by {@code requests}. */
    static Behavior<Command> create(int index, JdkFileRequests requests) {
        return Behaviors.receive(Command.class)
                .onMessage(Nop.class, m -> answer(m.replyTo(), Done.getInstance()))
                .onMessage(Open.class, m -> reply(requests.open(index, m.path(), m.options()), m.replyTo()))
                .onMessage(OpenBeneath.class, m -> reply(requests.openBeneath(m.directory(), m.path(), m.options()),
                        m.replyTo()))
                .onMessage(OpenBeneathWithStat.class, m -> reply(requests.openBeneathWithStat(m.directory(), m.path(),
                        m.options()), m.replyTo()))
                .onMessage(Read.class, m -> reply(requests.read(m.file(), m.position(), m.length()), m.replyTo()))
                .onMessage(READ_WITH, m -> readWith(requests, m))
                .onMessage(ReadBatch.class, m -> reply(requests.read(m.file(), m.positions(), m.length()),
                        m.replyTo()))
                .onMessage(ReadAll.class, m -> reply(requests.readAll(index, m.path()), m.replyTo()))
                .onMessage(Write.class, m -> reply(requests.write(m.file(), m.position(), m.data()), m.replyTo()))
                .onMessage(Fsync.class, m -> reply(requests.fsync(m.file(), m.dataOnly()), m.replyTo()))
                .onMessage(Stat.class, m -> reply(requests.stat(index, m.path()), m.replyTo()))
                .onMessage(StatFile.class, m -> reply(requests.stat(m.file()), m.replyTo()))
                .onMessage(Close.class, m -> reply(requests.close(m.file()), m.replyTo()))
                .build();
    }

    private static <T> Behavior<Command> readWith(JdkFileRequests requests, ReadWith<T> m) {
        return reply(requests.read(m.file(), m.position(), m.length(), m.reader()), m.replyTo());
    }

    /** Answers {@code replyTo} from the thread that completes {@code answer}: the dispatcher's, for a call. */
    private static <T> Behavior<Command> reply(CompletionStage<T> answer, ActorRef<StatusReply<T>> replyTo) {
        answer.whenComplete((value, failure) -> replyTo.tell(failure == null ? StatusReply.success(value)
                : StatusReply.error(failure)));
        return Behaviors.same();
    }

    private static <T> Behavior<Command> answer(ActorRef<StatusReply<T>> replyTo, T value) {
        replyTo.tell(StatusReply.success(value));
        return Behaviors.same();
    }
}
