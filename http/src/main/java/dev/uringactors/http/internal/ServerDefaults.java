package dev.uringactors.http.internal;

import com.typesafe.config.Config;
import org.apache.pekko.http.scaladsl.settings.Http2ServerSettings;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;
import scala.collection.immutable.Set$;

/**
 * What a UringHttp server changes in Pekko HTTP's settings, on either backend, where Pekko's defaults leave it
 * exposed: the listen backlog is at least {@code uring.tcp.backlog} (Pekko's 100 overflows under a burst of
 * connections, and the kernel resets those it then answers with SYN cookies); and with
 * {@code uring.http.throttle-http2-resets} on, an HTTP/2 connection that resets streams faster than
 * {@code pekko.http.server.http2.frame-type-throttle} allows is closed, unless frame types to throttle are set
 * there (Pekko throttles none: a rapid-reset client, CVE-2023-44487, is served without limit).
 *
 * @param backlog        {@code uring.tcp.backlog}
 * @param throttleResets {@code uring.http.throttle-http2-resets}
 */
public record ServerDefaults(int backlog, boolean throttleResets) {
    private static final String THROTTLE_RESETS = "uring.http.throttle-http2-resets";

    public static ServerDefaults of(Config config) {
        return new ServerDefaults(config.getInt("uring.tcp.backlog"), config.getBoolean(THROTTLE_RESETS));
    }

    /** {@code settings} (Pekko HTTP's Java or Scala ones: the same class) with these applied. */
    public ServerSettings applyTo(org.apache.pekko.http.javadsl.settings.ServerSettings settings) {
        ServerSettings scala = (ServerSettings) settings;
        ServerSettings applied = scala.backlog() >= backlog ? scala : scala.withBacklog(backlog);
        Http2ServerSettings http2 = applied.http2Settings();
        if (throttleResets && http2.frameTypeThrottleFrameTypes().isEmpty()) {
            applied = applied.withHttp2Settings(http2.withFrameTypeThrottleFrameTypes(
                    Set$.MODULE$.<String>empty().incl("reset")));
        }
        return applied;
    }
}
