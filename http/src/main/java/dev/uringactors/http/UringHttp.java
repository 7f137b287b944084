package dev.uringactors.http;

import dev.uringactors.actors.Backend;
import dev.uringactors.actors.UringExtension;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.stream.SystemMaterializer;

/**
 * Pekko HTTP servers on the rings. {@code UringHttp.get(system).newServerAt(host, port)} gives Pekko HTTP's own
 * {@link ServerBuilder}, so moving a server from {@code Http.get(system)} is a change of that one call; routes,
 * settings ({@code pekko.http.server.*}), HTTPS contexts and the {@code ServerBinding} are Pekko HTTP's. Each
 * connection's HTTP stack and handler run on the thread of the ring that accepted it.
 *
 * <p>HTTP/1.1 only: with {@code pekko.http.server.enable-http2} on, connections are still served as HTTP/1.1.
 *
 * <p>Under the JDK backend ({@code uring.backend}, see {@link UringExtension#backend()}) the builder is Pekko
 * HTTP's own, {@code Http.get(system).newServerAt(host, port)}, binding through Pekko's transport.
 */
public final class UringHttp {
    private final ClassicActorSystemProvider system;

    private UringHttp(ClassicActorSystemProvider system) {
        this.system = system;
    }

    /** The entry point for a system (classic or typed). */
    public static UringHttp get(ClassicActorSystemProvider system) {
        return new UringHttp(system);
    }

    /**
     * A server builder for {@code host:port} (port 0 picks a free one), with {@code pekko.http.server} settings,
     * no encryption (see {@link ServerBuilder#enableHttps}) and the system's materializer.
     */
    public ServerBuilder newServerAt(String host, int port) {
        if (UringExtension.get(Adapter.toTyped(system.classicSystem())).backend() == Backend.JDK) {
            return Http.get(system).newServerAt(host, port);
        }
        return new UringServerBuilder(system, host, port, ConnectionContext.noEncryption(),
                system.classicSystem().log(), ServerSettings.create(system.classicSystem()),
                SystemMaterializer.get(system).materializer());
    }
}
