package dev.uringactors.actors.internal.backend;

import dev.uringactors.actors.BackendChoice;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.SqPollStats;
import dev.uringactors.actors.internal.file.FileService;
import dev.uringactors.actors.internal.file.OpenFiles;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.actors.tcp.TcpProtocol.ManagerCommand;
import dev.uringactors.config.UringSettings;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.stream.Materializer;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What differs between the rings and the JDK backend, chosen once at start ({@link IoBackends}): the dispatchers,
 * the file service, the TCP manager, where a connection's protocol stack runs, the figures. Every other class asks
 * this instead of testing which backend runs; {@code UringExtension.backend()} stays for users.
 */
public interface IoBackend {
    /** Which backend runs, and why. */
    BackendChoice choice();

    /** The {@code uring} settings it was started with. */
    UringSettings settings();

    /** Names this system's I/O among others in the JVM (JMX, executor keys). */
    String instance();

    /** The number of rings: under the JDK backend the configured number, which spreads work all the same. */
    int count();

    /** The next ring in turn, to spread work that has no home yet. */
    int nextRing();

    /** The rings that run and have figures: {@link #count()}, or none under the JDK backend. */
    int runningRings();

    /** The id of the dispatcher that runs actors on ring {@code i}: its thread, or the default dispatcher. */
    String dispatcherId(int i);

    /** The id of the dispatcher that runs what is submitted on a ring's thread on that ring. */
    String nearestRingDispatcherId();

    /** The index of the ring whose thread this is, or -1 on any other thread (every thread under the JDK backend). */
    int ringOfThisThread();

    /** Ring {@code i}'s own dispatcher, or empty where a connection lives on no ring. */
    Optional<String> ringDispatcherId(int i);

    /**
     * Where the protocol stages of a connection on ring {@code i} run (Pekko HTTP's, say): on its ring's thread,
     * or on a dispatcher whose threads have the ring threads' deep stack.
     */
    String stackDispatcherId(int i);

    /** The materializer of server connection stacks: the system's, or one on {@link #stackDispatcherId}'s. */
    Materializer stackMaterializer();

    /** Ring {@code i}'s counters, taken on its thread; failed where no ring runs. */
    CompletionStage<RingLoopStats> stats(int i);

    /** Each SQPOLL thread's figures, one per group; none without SQPOLL. */
    List<CompletableFuture<SqPollStats>> sqPollStats();

    /** Starts the file actors; the rings' own open with the table {@code openFiles}. */
    FileService startFiles(OpenFiles openFiles);

    /** The behaviour of the TCP manager: Bind and Connect. */
    Behavior<ManagerCommand> tcpManager();

    /** The rings, for what only rings have (loops, supervisors); refused under the JDK backend. */
    Rings rings();

    /** Cancels, drains and closes what runs; the same stage each time. */
    CompletionStage<Done> shutdown();
}
