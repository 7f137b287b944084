package dev.uringactors.samples;

import com.typesafe.config.Config;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.PeerClosed;
import dev.uringactors.actors.tcp.TcpProtocol.Received;
import dev.uringactors.actors.tcp.TcpProtocol.Register;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.util.ByteString;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A static file server over HTTP/1.1: GET and HEAD of the files beneath a root, with conditional requests,
 * single byte ranges, index pages and directory listings. Requests are parsed by {@link HttpRequestParser} and
 * answered in order, one at a time per connection.
 *
 * <p>Each connection's handler runs on the connection's ring and sends its file requests to that ring's file actor,
 * so that opening, reading and sending a file never leave the ring's thread, and nothing blocks it: what the
 * handler learns of a file, it learns from the ring. Every file is opened beneath the root by the kernel
 * ({@link RingProtocol.OpenBeneath}) after the target was decoded and checked ({@link RequestPath}), then
 * statted through its descriptor ({@link RingProtocol.StatFile}): the file that was opened, not whatever the path
 * names by then. The response goes out as one {@code WriteFile}: the head, then the file, a piece at a time and
 * paced by the peer, never through the Java heap; the file is closed once it is sent.
 */
final class FileServer {
    private static final String ALLOW = "Allow: GET, HEAD\r\n";
    private static final Set<StandardOpenOption> READ = Set.of(StandardOpenOption.READ);
    /** Files being sent on one connection at most: a pipelining client cannot make it hold more open. */
    private static final int MAX_FILES_IN_FLIGHT = 2 * AckedWriter.FILES_PER_ACK;

    private FileServer() {
    }

    /**
     * Opens {@code root} (a directory), then binds {@code address}; {@code bound} completes with the address, or
     * with why the root could not be opened or the address bound.
     */
    static Behavior<Event> create(InetSocketAddress address, CompletableFuture<InetSocketAddress> bound, Path root) {
        return Behaviors.<Object>setup(ctx -> {
            ctx.pipeToSelf(UringFiles.get(ctx.getSystem()).open(root), (dir, failure) -> failure != null
                    ? new IllegalStateException("root " + root + ": " + failure.getMessage(), failure) : dir);
            return Behaviors.receive(Object.class)
                    .onMessage(FileHandle.class, dir -> serving(ctx, address, bound, dir))
                    .onMessage(IllegalStateException.class, e -> {
                        bound.completeExceptionally(e);
                        return Behaviors.stopped();
                    })
                    .build();
        }).narrow();
    }

    private static Behavior<Object> serving(ActorContext<Object> ctx, InetSocketAddress address,
                                            CompletableFuture<InetSocketAddress> bound, FileHandle root) {
        ctx.spawn(TcpServer.bind(address, bound, connected -> connection(connected, root)), "listener");
        return Behaviors.receive(Object.class)
                .onSignal(PostStop.class, s -> {
                    UringFiles.get(ctx.getSystem()).close(root);
                    return Behaviors.same();
                })
                .build();
    }

    /** The handler of one connection, to be spawned on the connection's ring. */
    static Behavior<Event> connection(Connected connected, FileHandle root) {
        return Behaviors.<Object>setup(ctx -> Behaviors.withTimers(timers -> {
            Config config = ctx.getSystem().settings().config();
            connected.connection().tell(new Register(ctx.getSelf().narrow(), true));
            return new Connection(ctx, timers, connected, root, config).behavior();
        })).narrow();
    }

    /** A directory listing, made off the ring thread: the page, or why it could not be made. */
    private record Listed(byte[] page, Throwable failure) {
    }

    /** What the request in progress waits for: a file's open then its stat, an index page's, or a listing. */
    private enum Stage { OPENING, OPENING_INDEX, LISTING }

    private static final class Connection {
        private final ActorContext<Object> ctx;
        private final TimerScheduler<Object> timers;
        private final ActorRef<ConnectionCommand> connection;
        private final FileHandle root;
        private final ActorRef<RingProtocol.Command> ring;
        private final HttpRequestParser parser;
        private final Duration headTimeout;
        private final Executor blocking;
        private final AckedWriter writer;
        private final ArrayDeque<HttpRequestParser.Request> pending = new ArrayDeque<>();
        private final HttpResponses responses = new HttpResponses();

        /** The request in progress, the file it names, and what it waits for (null: nothing). */
        private HttpRequestParser.Request current;
        private RequestPath path;
        private Stage stage;
        private FileHandle file;
        /** A directory whose index.html is looked for, or which is being listed. */
        private FileHandle directory;
        private boolean closing;
        private boolean peerClosed;
        private boolean connectionClosed;
        /** The validators of the file served last: a client asking for one file again and again reuses them. */
        private FileValidators lastValidators;

        Connection(ActorContext<Object> ctx, TimerScheduler<Object> timers, Connected connected, FileHandle root,
                   Config config) {
            this.ctx = ctx;
            this.timers = timers;
            this.connection = connected.connection();
            this.root = root;
            // The handler runs on the connection's ring (TcpServer spawns it there): file requests go to that ring.
            this.ring = UringFiles.get(ctx.getSystem()).ring(connected.ring());
            this.parser = HttpServer.parser(config.getConfig("samples.http"));
            this.headTimeout = config.getDuration("samples.http.head-timeout");
            this.blocking = ctx.getSystem().dispatchers().lookup(DispatcherSelector.blocking());
            this.writer = new AckedWriter(connection);
        }

        Behavior<Object> behavior() {
            return Behaviors.receive(Object.class)
                    .onMessage(Received.class, this::received)
                    .onMessage(StatusReply.class, this::ringReply)
                    .onMessage(Ack.class, this::acknowledged)
                    .onMessage(Listed.class, this::listed)
                    .onMessage(HttpServer.HeadTimeout.class, t -> {
                        if (current != null) { // the 408 must not overtake the answer in progress
                            timers.startSingleTimer(HttpServer.HeadTimeout.INSTANCE, headTimeout);
                        } else if (!closing) {
                            respondError(408);
                        }
                        return Behaviors.same();
                    })
                    .onMessage(CommandFailed.class, f -> {
                        connection.tell(CloseCommand.ABORT); // a file that could not be sent as promised
                        return Behaviors.same();
                    })
                    .onMessage(PeerClosed.class, p -> {
                        peerClosed = true;
                        serveNext();
                        return Behaviors.same();
                    })
                    .onMessage(ConnectionClosed.class, c -> {
                        connectionClosed = true;
                        return stopWhenIdle();
                    })
                    .onSignal(PostStop.class, s -> { // also when the system stops first: no fd stays open
                        releaseAll();
                        return Behaviors.same();
                    })
                    .build();
        }

        private Behavior<Object> received(Received r) {
            if (closing) {
                return Behaviors.same();
            }
            parser.append(r.data().toArrayUnsafe());
            HttpRequestParser.Request request;
            while ((request = parser.next()) != null) {
                pending.add(request);
            }
            HttpServer.timeHead(parser, timers, headTimeout);
            serveNext();
            return Behaviors.same();
        }

        /** Starts the next request when none is in progress and the files being sent leave room. */
        private void serveNext() {
            while (current == null && !closing && writer.filesInFlight() < MAX_FILES_IN_FLIGHT) {
                current = pending.poll();
                if (current == null) {
                    if (peerClosed) { // the peer sends no more: what it asked for is answered, then close
                        closing = true;
                        writer.closeWhenWritten();
                    }
                    return;
                }
                begin();
            }
        }

        private void begin() {
            if (current.errorStatus() != 0) {
                respondError(current.errorStatus());
                return;
            }
            if (!current.method().equals("GET") && !current.method().equals("HEAD")) {
                respond(responses.text(405, HttpResponses.NO_BODY, ALLOW + connectionHeader()));
                return;
            }
            try {
                path = RequestPath.of(current.target());
            } catch (RequestPath.RefusedException e) {
                respondError(e.refusal == RequestPath.Refusal.MALFORMED ? 400 : 403);
                return;
            }
            stage = Stage.OPENING;
            ring.tell(new RingProtocol.OpenBeneath(root, Path.of(path.relative()), READ, answers()));
        }

        /** The ring's answer to the one request in flight: an open, then the stat of the file it opened. */
        private Behavior<Object> ringReply(StatusReply<?> answer) {
            if (connectionClosed) { // the answer came after the connection: only release what it holds
                if (answer.isSuccess() && answer.getValue() instanceof FileHandle opened) {
                    closeFile(opened);
                }
                stage = null;
                return stopWhenIdle();
            }
            if (answer.isError()) {
                failed(answer.getError());
            } else if (answer.getValue() instanceof FileHandle opened) {
                file = opened;
                ring.tell(new RingProtocol.StatFile(file, answers()));
            } else if (stage == Stage.OPENING) {
                opened((FileStat) answer.getValue());
            } else {
                indexOpened((FileStat) answer.getValue());
            }
            serveNext();
            return Behaviors.same();
        }

        /** Where the ring answers a request: straight to this handler, which takes opens' and stats' answers. */
        private <T> ActorRef<StatusReply<T>> answers() {
            return ctx.getSelf().narrow();
        }

        private void indexOpened(FileStat stat) {
            if (stat.isRegularFile()) {
                closeFile(directory);
                directory = null;
                serveFile(stat);
            } else { // an index.html that is not a file: list the directory instead
                releaseFile();
                list();
            }
        }

        /** A file request failed: a missing index page means a listing; an open that failed, 404 or 403. */
        private void failed(Throwable error) {
            if (stage == Stage.OPENING_INDEX && file == null && error instanceof UringException u
                    && u.errno() == Errno.ENOENT) {
                list();
                return;
            }
            int status = 500;
            if (error instanceof UringException u && file == null) { // the open failed
                int errno = u.errno();
                // ENXIO: a FIFO, which the JDK backend does not open for reading only (a ring opens it, and the
                // stat after says it is no regular file: 403 as well).
                status = errno == Errno.ENOENT || errno == Errno.ENOTDIR || errno == Errno.ENAMETOOLONG ? 404
                        : errno == Errno.EXDEV || errno == Errno.ELOOP || errno == Errno.EACCES
                        || errno == Errno.EPERM || errno == Errno.ENXIO ? 403 : 500;
            }
            if (status == 500) {
                ctx.getLog().warn("{} {}: {}", current.method(), current.target(), error.toString());
            }
            for (FileHandle held : new FileHandle[] {file, directory}) {
                if (held != null) {
                    closeFile(held);
                }
            }
            file = null;
            directory = null;
            respondError(status);
        }

        private void opened(FileStat stat) {
            if (stat.isDirectory()) {
                if (!path.directorySyntax()) { // relative links in its page must resolve inside it
                    releaseFile();
                    respond(responses.text(301, HttpResponses.NO_BODY, "Location: "
                            + RequestPath.pathOf(current.target()) + "/\r\n" + connectionHeader()));
                    return;
                }
                directory = file;
                file = null;
                stage = Stage.OPENING_INDEX;
                ring.tell(new RingProtocol.OpenBeneath(directory, Path.of("index.html"), READ, answers()));
            } else if (stat.isRegularFile()) {
                serveFile(stat);
            } else {
                releaseFile();
                respondError(403);
            }
        }

        /** The answer for a regular file: 304, 416, or 200/206 with all or part of it. */
        private void serveFile(FileStat stat) {
            FileValidators validators = validators(stat);
            if (validators.notModified(current.header("if-none-match"), current.header("if-modified-since"))) {
                releaseFile();
                respond(validated(304, validators).lines(connectionHeader()).end(-1));
                return;
            }
            ByteRange range = validators.rangeApplies(current.header("if-range"))
                    ? ByteRange.parse(current.header("range"), stat.size()) : ByteRange.WHOLE;
            if (range instanceof ByteRange.Unsatisfiable) {
                releaseFile();
                respond(responses.text(416, HttpResponses.NO_BODY, "Content-Range: bytes */"
                        + stat.size() + "\r\n" + connectionHeader()));
                return;
            }
            ByteRange.Slice slice = range instanceof ByteRange.Slice s ? s : new ByteRange.Slice(0, stat.size() - 1);
            boolean partial = range instanceof ByteRange.Slice;
            HttpResponses.Head written = responses.start(partial ? 206 : 200)
                    .header("Content-Type", FileValidators.contentType(file.path().toString()));
            validated(written, validators).header("Accept-Ranges", "bytes");
            if (partial) {
                written.header("Content-Range", "bytes " + slice.first() + "-" + slice.last() + "/" + stat.size());
            }
            ByteString head = written.lines(connectionHeader()).end(slice.length());
            if (current.method().equals("HEAD") || slice.length() == 0) {
                releaseFile();
                respond(head);
            } else {
                writer.writeFile(head, file, slice.first(), slice.length()); // the connection closes it
                file = null;
                done();
            }
        }

        /** The validators of {@code stat}: those of the last file served again when it is the same version. */
        private FileValidators validators(FileStat stat) {
            if (lastValidators == null || !lastValidators.of(stat)) {
                lastValidators = new FileValidators(stat);
            }
            return lastValidators;
        }

        private HttpResponses.Head validated(int status, FileValidators validators) {
            return validated(responses.start(status), validators);
        }

        private static HttpResponses.Head validated(HttpResponses.Head head, FileValidators validators) {
            return head.header("Last-Modified", validators.lastModified()).header("ETag", validators.etag());
        }

        private Behavior<Object> acknowledged(Ack ack) {
            writer.acknowledged(ack);
            serveNext();
            return Behaviors.same();
        }

        private void list() {
            stage = Stage.LISTING;
            FileHandle listed = directory;
            String shown = RequestPath.pathOf(current.target());
            ActorRef<Object> self = ctx.getSelf();
            CompletableFuture.supplyAsync(() -> {
                try {
                    return DirectoryListing.html(listed, shown);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, blocking).whenComplete((page, failure) -> self.tell(new Listed(page, failure)));
        }

        private Behavior<Object> listed(Listed listed) {
            stage = null;
            closeFile(directory);
            directory = null;
            if (connectionClosed) {
                return stopWhenIdle();
            }
            if (listed.failure() != null) {
                ctx.getLog().warn("listing {}: {}", current.target(), listed.failure().toString());
                respondError(500);
            } else {
                byte[] page = listed.page();
                ByteString head = responses.start(200).header("Content-Type", "text/html; charset=utf-8")
                        .lines(connectionHeader()).end(page.length);
                // A page of a large directory is joined to its head, not copied beside it.
                respond(current.method().equals("HEAD") ? head : head.concat(ByteString.fromArrayUnsafe(page)));
            }
            serveNext();
            return Behaviors.same();
        }

        private String connectionHeader() {
            return HttpServer.connectionHeader(current);
        }

        private void respondError(int status) {
            boolean close = current == null || current.errorStatus() != 0 || status == 408 || !current.keepAlive();
            ByteString response = responses.text(status, HttpResponses.NO_BODY,
                    close ? "Connection: close\r\n" : connectionHeader());
            if (close) {
                closing = true;
                timers.cancelAll();
                writer.write(response);
                writer.closeWhenWritten();
                current = null;
                stage = null;
            } else {
                respond(response);
            }
        }

        /** Writes the whole response of the current request; the caller goes on with the next ({@link #serveNext}). */
        private void respond(ByteString response) {
            writer.write(response);
            done();
        }

        private void done() {
            if (!current.keepAlive()) {
                closing = true;
                timers.cancelAll();
                writer.closeWhenWritten();
            }
            current = null;
            stage = null;
        }

        /** Closes the file of the request in progress, which needs it no more. */
        private void releaseFile() {
            closeFile(file);
            file = null;
        }

        private void closeFile(FileHandle handle) {
            ring.tell(new RingProtocol.Close(handle, ctx.getSystem().ignoreRef()));
        }

        /** The connection is gone: stops once no answer of the ring is outstanding (PostStop closes the rest). */
        private Behavior<Object> stopWhenIdle() {
            return stage != null ? Behaviors.same() : Behaviors.stopped(); // an open's answer may still bring an fd
        }

        /** Closes what this handler holds: the files of the request in progress, and those the writer kept. */
        private void releaseAll() {
            writer.unsentFiles().forEach(this::closeFile);
            for (FileHandle held : new FileHandle[] {file, directory}) {
                if (held != null) {
                    closeFile(held);
                }
            }
        }
    }
}
