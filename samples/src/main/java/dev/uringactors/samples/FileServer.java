package dev.uringactors.samples;

import com.typesafe.config.Config;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.OpenedFile;
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
 * after the target was decoded and checked ({@link RequestPath}), and statted through its descriptor, in one
 * request ({@link RingProtocol.OpenBeneathWithStat}): the file that was opened, not whatever the path names by
 * then. The response goes out as one {@code WriteFile}: the head, then the file, a piece at a time and paced by
 * the peer, never through the Java heap (a small file's piece is read and sent in one chain of the ring's); the
 * file is closed once it is sent.
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

    /** What the request in progress waits for: a file opened with its stat, an index page so, or a listing. */
    private enum Stage { OPENING, OPENING_INDEX, LISTING }

    /**
     * One connection, a behaviour per phase: serving (requests are read and answered in turn), serving after the
     * peer's half-close (what it asked for is answered, then the connection closes), closing (the last answer is
     * written, nothing more is served), and gone (the connection closed while the ring still owes an answer,
     * which may bring a file to close). Within a phase, what the request in progress waits for is its stage.
     */
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
            return serving(false);
        }

        /** Requests are answered in turn; {@code peerDone}: the peer sends no more, and is closed on once answered. */
        private Behavior<Object> serving(boolean peerDone) {
            return Behaviors.receive(Object.class)
                    .onMessage(Received.class, r -> received(r, peerDone))
                    .onMessage(StatusReply.class, answer -> ringReply(answer, peerDone))
                    .onMessage(Ack.class, ack -> acknowledged(ack, peerDone))
                    .onMessage(Listed.class, listed -> listed(listed, peerDone))
                    .onMessage(HttpServer.HeadTimeout.class, t -> {
                        if (current == null) {
                            return respondError(408);
                        }
                        timers.startSingleTimer(HttpServer.HeadTimeout.INSTANCE, headTimeout); // after the answer
                        return Behaviors.same();
                    })
                    .onMessage(CommandFailed.class, this::abort)
                    .onMessage(PeerClosed.class, p -> peerDone ? Behaviors.same() : serveNext(serving(true), true))
                    .onMessage(ConnectionClosed.class, c -> connectionClosed())
                    .onSignal(PostStop.class, this::releaseAll)
                    .build();
        }

        /** The last answer is written; what still arrives is not served, but a file it brings is closed. */
        private Behavior<Object> closing() {
            timers.cancelAll();
            writer.closeWhenWritten();
            return Behaviors.receive(Object.class)
                    .onMessage(Ack.class, ack -> {
                        writer.acknowledged(ack);
                        return Behaviors.same();
                    })
                    .onMessage(StatusReply.class, answer -> {
                        release(answer);
                        return Behaviors.same();
                    })
                    .onMessage(CommandFailed.class, this::abort)
                    .onMessage(ConnectionClosed.class, c -> connectionClosed())
                    .onSignal(PostStop.class, this::releaseAll)
                    .onAnyMessage(m -> Behaviors.same())
                    .build();
        }

        /** The connection closed while the ring owes an answer: it is waited for, to close what it brings. */
        private Behavior<Object> gone() {
            return Behaviors.receive(Object.class)
                    .onMessage(StatusReply.class, answer -> {
                        release(answer);
                        return Behaviors.stopped();
                    })
                    .onMessage(Listed.class, listed -> {
                        releaseDirectory();
                        return Behaviors.stopped();
                    })
                    .onSignal(PostStop.class, this::releaseAll)
                    .onAnyMessage(m -> Behaviors.same())
                    .build();
        }

        /** Stops, unless an answer of the ring is outstanding (an open's may bring an fd): PostStop closes the rest. */
        private Behavior<Object> connectionClosed() {
            return stage != null ? gone() : Behaviors.stopped();
        }

        private Behavior<Object> abort(CommandFailed failed) {
            connection.tell(CloseCommand.ABORT); // a file that could not be sent as promised
            return Behaviors.same();
        }

        private Behavior<Object> received(Received r, boolean peerDone) {
            parser.append(r.data().toArrayUnsafe());
            HttpRequestParser.Request request;
            while ((request = parser.next()) != null) {
                pending.add(request);
            }
            HttpServer.timeHead(parser, timers, headTimeout);
            return serveNext(Behaviors.same(), peerDone);
        }

        /**
         * Starts the next request when none is in progress and the files being sent leave room; {@code phase} is
         * where it goes on from (the same, or the half-closed phase just entered), unless an answer closes.
         */
        private Behavior<Object> serveNext(Behavior<Object> phase, boolean peerDone) {
            while (current == null && writer.filesInFlight() < MAX_FILES_IN_FLIGHT) {
                current = pending.poll();
                if (current == null) { // the peer sends no more: what it asked for is answered, then close
                    return peerDone ? closing() : phase;
                }
                Behavior<Object> next = begin();
                if (next != Behaviors.<Object>same()) {
                    return next;
                }
            }
            return phase;
        }

        /** The phase an answer leaves the connection in: serving on, unless the answer closed it. */
        private Behavior<Object> thenServeNext(Behavior<Object> next, boolean peerDone) {
            return next == Behaviors.<Object>same() ? serveNext(next, peerDone) : next;
        }

        private Behavior<Object> begin() {
            if (current.errorStatus() != 0) {
                return respondError(current.errorStatus());
            }
            if (!current.method().equals("GET") && !current.method().equals("HEAD")) {
                return respond(responses.text(405, HttpResponses.NO_BODY, ALLOW + connectionHeader()));
            }
            try {
                path = RequestPath.of(current.target());
            } catch (RequestPath.RefusedException e) {
                return respondError(e.refusal == RequestPath.Refusal.MALFORMED ? 400 : 403);
            }
            stage = Stage.OPENING;
            ring.tell(new RingProtocol.OpenBeneathWithStat(root, Path.of(path.relative()), READ, answers()));
            return Behaviors.same();
        }

        /** The ring's answer to the one request in flight: a file opened, with its stat. */
        private Behavior<Object> ringReply(StatusReply<?> answer, boolean peerDone) {
            Behavior<Object> next;
            if (answer.isError()) {
                next = failed(answer.getError());
            } else {
                OpenedFile opened = (OpenedFile) answer.getValue();
                file = opened.file();
                next = stage == Stage.OPENING ? opened(opened.stat()) : indexOpened(opened.stat());
            }
            return thenServeNext(next, peerDone);
        }

        /** An answer that came when no request wants it: the file it opened is closed. */
        private void release(StatusReply<?> answer) {
            stage = null;
            if (answer.isSuccess() && answer.getValue() instanceof OpenedFile opened) {
                closeFile(opened.file());
            }
        }

        /** Where the ring answers a request: straight to this handler, which takes the opens' answers. */
        private <T> ActorRef<StatusReply<T>> answers() {
            return ctx.getSelf().narrow();
        }

        private Behavior<Object> indexOpened(FileStat stat) {
            if (stat.isRegularFile()) {
                releaseDirectory();
                return serveFile(stat);
            }
            releaseFile(); // an index.html that is not a file: list the directory instead
            return list();
        }

        /** A file request failed: a missing index page means a listing; an open that failed, 404 or 403. */
        private Behavior<Object> failed(Throwable error) {
            if (stage == Stage.OPENING_INDEX && file == null && error instanceof UringException u
                    && u.errno() == Errno.ENOENT) {
                return list();
            }
            int status = 500;
            if (error instanceof UringException u && file == null) { // the open (or the stat after it) failed
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
            releaseFile();
            releaseDirectory();
            return respondError(status);
        }

        private Behavior<Object> opened(FileStat stat) {
            if (stat.isDirectory()) {
                if (!path.directorySyntax()) { // relative links in its page must resolve inside it
                    releaseFile();
                    return respond(responses.text(301, HttpResponses.NO_BODY, "Location: "
                            + RequestPath.pathOf(current.target()) + "/\r\n" + connectionHeader()));
                }
                directory = file;
                file = null;
                stage = Stage.OPENING_INDEX;
                ring.tell(new RingProtocol.OpenBeneathWithStat(directory, Path.of("index.html"), READ, answers()));
                return Behaviors.same();
            }
            if (stat.isRegularFile()) {
                return serveFile(stat);
            }
            releaseFile();
            return respondError(403);
        }

        /** The answer for a regular file: 304, 416, or 200/206 with all or part of it. */
        private Behavior<Object> serveFile(FileStat stat) {
            FileValidators validators = validators(stat);
            if (validators.notModified(current.header("if-none-match"), current.header("if-modified-since"))) {
                releaseFile();
                return respond(validated(304, validators).lines(connectionHeader()).end(-1));
            }
            ByteRange range = validators.rangeApplies(current.header("if-range"))
                    ? ByteRange.parse(current.header("range"), stat.size()) : ByteRange.WHOLE;
            if (range instanceof ByteRange.Unsatisfiable) {
                releaseFile();
                return respond(responses.text(416, HttpResponses.NO_BODY, "Content-Range: bytes */"
                        + stat.size() + "\r\n" + connectionHeader()));
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
                return respond(head);
            }
            writer.writeFile(head, file, slice.first(), slice.length()); // the connection closes it
            file = null;
            return done();
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

        private Behavior<Object> acknowledged(Ack ack, boolean peerDone) {
            writer.acknowledged(ack);
            return serveNext(Behaviors.same(), peerDone);
        }

        private Behavior<Object> list() {
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
            return Behaviors.same();
        }

        private Behavior<Object> listed(Listed listed, boolean peerDone) {
            stage = null;
            releaseDirectory();
            if (listed.failure() != null) {
                ctx.getLog().warn("listing {}: {}", current.target(), listed.failure().toString());
                return respondError(500);
            }
            byte[] page = listed.page();
            ByteString head = responses.start(200).header("Content-Type", "text/html; charset=utf-8")
                    .lines(connectionHeader()).end(page.length);
            // A page of a large directory is joined to its head, not copied beside it.
            return thenServeNext(respond(current.method().equals("HEAD") ? head
                    : head.concat(ByteString.fromArrayUnsafe(page))), peerDone);
        }

        private String connectionHeader() {
            return HttpServer.connectionHeader(current);
        }

        /** An error's answer; one that cannot leave the connection in a known state closes it. */
        private Behavior<Object> respondError(int status) {
            boolean close = current == null || current.errorStatus() != 0 || status == 408 || !current.keepAlive();
            ByteString response = responses.text(status, HttpResponses.NO_BODY,
                    close ? "Connection: close\r\n" : connectionHeader());
            if (!close) {
                return respond(response);
            }
            writer.write(response);
            current = null;
            stage = null;
            return closing();
        }

        /** Writes the whole response of the current request; the caller goes on with the next ({@link #serveNext}). */
        private Behavior<Object> respond(ByteString response) {
            writer.write(response);
            return done();
        }

        private Behavior<Object> done() {
            boolean last = !current.keepAlive();
            current = null;
            stage = null;
            return last ? closing() : Behaviors.same();
        }

        /** Closes the file of the request in progress, which needs it no more. */
        private void releaseFile() {
            if (file != null) {
                closeFile(file);
                file = null;
            }
        }

        private void releaseDirectory() {
            if (directory != null) {
                closeFile(directory);
                directory = null;
            }
        }

        private void closeFile(FileHandle handle) {
            ring.tell(new RingProtocol.Close(handle, ctx.getSystem().ignoreRef()));
        }

        /** Closes what this handler holds (also when the system stops first): no fd stays open. */
        private Behavior<Object> releaseAll(PostStop stop) {
            writer.unsentFiles().forEach(this::closeFile);
            releaseFile();
            releaseDirectory();
            return Behaviors.same();
        }
    }
}
