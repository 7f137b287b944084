package dev.uringactors.samples.docs;

import dev.uringactors.actors.PlainFuture;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.FileStat;
import dev.uringactors.actors.file.OpenedFile;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.file.UringOpenOption;
import dev.uringactors.actors.stream.UringFileIO;
import dev.uringactors.actors.stream.UringTcp;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Connected;
import dev.uringactors.http.UringHttp;
import dev.uringactors.ring.CompletionHandler;
import dev.uringactors.ring.NativeBuffer;
import dev.uringactors.ring.OpFlags;
import dev.uringactors.ring.Opcode;
import dev.uringactors.ring.Ring;
import dev.uringactors.ring.SetupFlag;
import dev.uringactors.ring.UringException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.OutgoingConnection;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.stream.IOResult;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import static java.nio.file.StandardOpenOption.READ;
import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.completeWithFuture;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.path;

/**
 * The Java snippets of README.md and docs/guide: each between a {@code // snippet:NAME} line and the next
 * {@code // end} line. {@link DocsTest} fails when the docs' copy differs. Compiled; one is run, by
 * {@link OneBlockingRouteTest}.
 */
@SuppressWarnings({"unused", "UnusedAssignment"})
final class DocSnippets {
    private DocSnippets() {
    }

    static CompletionStage<ServerBinding> pekkoHttp(ActorSystem<?> system, Route route) {
        // snippet:pekko-http-one-line
        CompletionStage<ServerBinding> binding =
            UringHttp.get(system).newServerAt("127.0.0.1", 8080).bind(route);   // was: Http.get(system).newServerAt(...)
        // end
        return binding;
    }

    static CompletionStage<HttpResponse> client(ActorSystem<?> system, String uri) {
        // snippet:pekko-http-client
        CompletionStage<HttpResponse> response =
            UringHttp.get(system).singleRequest(HttpRequest.GET(uri));   // the system's pool for the host, on the rings
        // end
        return response;
    }

    static CompletionStage<HttpResponse> pekkosClient(ActorSystem<?> system, String uri) {
        // snippet:pekko-http-client-settings
        Http http = Http.get(system);
        CompletionStage<HttpResponse> response = PlainFuture.of(http.singleRequest(HttpRequest.GET(uri),
            http.defaultClientHttpsContext(), UringHttp.get(system).connectionPoolSettings(), system.classicSystem().log()),
            system);                                                  // its callbacks start no thread
        // end
        return response;
    }

    static Flow<HttpRequest, HttpResponse, CompletionStage<OutgoingConnection>> http2(ActorSystem<?> system) {
        // snippet:pekko-http2-client
        Flow<HttpRequest, HttpResponse, CompletionStage<OutgoingConnection>> connection =
            Http.get(system).connectionTo("127.0.0.1").toPort(8443)
                .withClientConnectionSettings(UringHttp.get(system).clientConnectionSettings())
                .http2();                                             // h2 by ALPN; or http2WithPriorKnowledge()
        // end
        return connection;
    }

    static void files(ActorSystem<?> system, Path path, Path source, Path target) {
        // snippet:files
        UringFiles files = UringFiles.get(system);
        CompletionStage<ByteString> head = files.open(path).thenCompose(f -> files.read(f, 0, 4096));
        CompletionStage<ByteString> whole = files.readAll(path);       // open, stat, read, close: one request
        CompletionStage<List<ByteString>> three =                      // one request, three reads
            files.open(path).thenCompose(f -> files.read(f, new long[] {0, 65536, 131072}, 4096));
        CompletionStage<Integer> magic =                               // lent, not copied: runs on the ring thread
            files.open(path).thenCompose(f -> files.read(f, 0, 4096, buf -> buf.getInt(16)));
        CompletionStage<IOResult> copied =                             // FileIO's shapes
            UringFileIO.fromPath(source).runWith(UringFileIO.toPath(target), system);
        // end
    }

    static void registered(UringFiles files, Path path) {
        // snippet:files-registered
        files.open(path, UringOpenOption.REGISTERED);  // into the ring's registered file table: no fd lookup per request
        // end
    }

    static void tcpStreams(ActorSystem<?> system) {
        // snippet:tcp-streams
        CompletionStage<UringTcp.ServerBinding> binding = UringTcp.get(system).bind("127.0.0.1", 8080)
            .to(Sink.foreach(connection -> connection.handleWith(Flow.of(ByteString.class), system)))
            .run(system);
        binding.thenAccept(b -> System.out.println("echo on " + b.localAddress()));
        // later: binding.thenCompose(UringTcp.ServerBinding::unbind)
        // end
    }

    static void ringAlone() {
        // snippet:ring-alone
        try (Ring ring = Ring.open(256, SetupFlag.SINGLE_ISSUER, SetupFlag.DEFER_TASKRUN);
             NativeBuffer path = NativeBuffer.ofString("/etc/hostname");
             NativeBuffer buf = NativeBuffer.allocate(4096)) {
            int[] res = new int[1];
            CompletionHandler keep = (userData, result, flags) -> res[0] = result;
            ring.nextSqe().prepOpenat(OpFlags.AT_FDCWD, path.address(), OpFlags.O_RDONLY | OpFlags.O_CLOEXEC, 0);
            ring.submitAndWait(1);
            ring.reap(keep);
            if (res[0] < 0) throw UringException.ofResult(Opcode.OPENAT, res[0], "/etc/hostname", ring.setupFlags());
            int fd = res[0];
            ring.nextSqe().prepRead(fd, buf.address(), 4096, 0);
            ring.submitAndWait(1);
            ring.reap(keep);                                    // res[0]: the bytes read, or -errno
            ring.nextSqe().prepClose(fd);                       // only once the read has completed
            ring.submitAndWait(1);
            ring.reap(keep);
        }
        // end
    }

    static void sendFile(ActorSystem<?> system, Connected connected, FileHandle rootDirectory, String requested,
                         ActorRef<StatusReply<OpenedFile>> replyTo, OpenedFile opened, ByteString head,
                         TcpProtocol.Event ack) {
        ActorRef<TcpProtocol.ConnectionCommand> connection = connected.connection();
        // snippet:files-beneath-and-send
        ActorRef<RingProtocol.Command> ring = UringFiles.get(system).ring(connected.ring()); // the connection's ring
        ring.tell(new RingProtocol.OpenBeneathWithStat(rootDirectory, Path.of(requested), Set.of(READ), replyTo));
                                                  // EXDEV if it escapes; the answer: the file and its stat
        FileHandle file = opened.file();
        connection.tell(new TcpProtocol.WriteFile(head, file, 0, opened.stat().size(), true, ack)); // head, then
                                                  // the file; the connection closes it when sent
        // end
    }

    static void routeDispatcher(ActorSystem<?> system, Route route) {
        // snippet:route-dispatcher
        UringHttp.get(system).newServerAt("0.0.0.0", 8080)
            .withRouteDispatcher("blocking-routes")    // or, for every server: uring.http.route-dispatcher = blocking-routes
            .bind(route);
        // end
    }

    static Route oneBlockingRoute(ActorSystem<?> system, Reports reports, Route otherRoutes) {
        // snippet:one-blocking-route
        Executor blocking = system.dispatchers().lookup(DispatcherSelector.fromConfig("blocking-routes"));
        Route report = path("report", () -> completeWithFuture(
            CompletableFuture.supplyAsync(reports::slowJdbcQuery, blocking)   // blocks a blocking-routes thread
                .thenApply(text -> HttpResponse.create().withEntity(text))));  // and the ring answers
        Route route = concat(report, otherRoutes);                            // the other routes stay on the ring
        // end
        return route;
    }

    /** Stands for a call that blocks ({@link OneBlockingRouteTest} runs the snippet with one). */
    interface Reports {
        String slowJdbcQuery();
    }

}
