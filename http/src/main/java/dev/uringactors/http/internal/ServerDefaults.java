package dev.uringactors.http.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import org.apache.pekko.http.scaladsl.settings.Http2ServerSettings;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;
import scala.collection.immutable.Set$;
import scala.concurrent.duration.FiniteDuration;

import java.util.concurrent.TimeUnit;

/**
 * What a UringHttp server changes in Pekko HTTP's settings, on either backend, where Pekko's defaults leave it
 * exposed: the listen backlog is at least {@code uring.tcp.backlog} (Pekko's 100 overflows under a burst of
 * connections, and the kernel resets those it then answers with SYN cookies); and with
 * {@code uring.http.http2-resets-per-second} above 0, an HTTP/2 connection whose client resets streams faster
 * than that (in bursts of as many) is closed, unless {@code pekko.http.server.http2.frame-type-throttle} names
 * frame types of its own (Pekko throttles none: a rapid-reset client, CVE-2023-44487, is served without limit).
 * Off by default: the throttle counts the resets a gRPC client sends for the DATA frames of a stream it cancelled,
 * and closed such a client's connection at 100 and at 1000 a second.
 *
 * @param backlog         {@code uring.tcp.backlog}
 * @param resetsPerSecond {@code uring.http.http2-resets-per-second}; 0 leaves Pekko's throttle as it is
 */
public record ServerDefaults(int backlog, int resetsPerSecond) {
    private static final String RESETS_PER_SECOND = "uring.http.http2-resets-per-second";

    public static ServerDefaults of(Config config) {
        int resetsPerSecond = config.getInt(RESETS_PER_SECOND);
        if (resetsPerSecond < 0) {
            throw new ConfigException.BadValue(RESETS_PER_SECOND, "0 (off) or more, not " + resetsPerSecond);
        }
        return new ServerDefaults(config.getInt("uring.tcp.backlog"), resetsPerSecond);
    }

    /** {@code settings} (Pekko HTTP's Java or Scala ones: the same class) with these applied. */
    public ServerSettings applyTo(org.apache.pekko.http.javadsl.settings.ServerSettings settings) {
        ServerSettings scala = (ServerSettings) settings;
        ServerSettings applied = scala.backlog() >= backlog ? scala : scala.withBacklog(backlog);
        Http2ServerSettings http2 = applied.http2Settings();
        if (resetsPerSecond > 0 && http2.frameTypeThrottleFrameTypes().isEmpty()) {
            applied = applied.withHttp2Settings(http2
                    .withFrameTypeThrottleFrameTypes(Set$.MODULE$.<String>empty().incl("reset"))
                    .withFrameTypeThrottleCost(resetsPerSecond)
                    .withFrameTypeThrottleBurst(resetsPerSecond)
                    .withFrameTypeThrottleInterval(FiniteDuration.apply(1, TimeUnit.SECONDS)));
        }
        return applied;
    }
}
