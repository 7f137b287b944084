package dev.uringactors.actors.internal.tcp.pekko;

import dev.uringactors.config.UringSettings;
import org.apache.pekko.io.Inet;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpSO;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** What Pekko's Tcp is given and answers, in this library's terms, under the JDK backend. */
public final class PekkoOptions {
    private PekkoOptions() {
    }

    /** The socket options, with TCP_NODELAY as {@code uring.tcp.no-delay} has it unless they set it themselves. */
    public static List<Inet.SocketOption> of(UringSettings.Tcp tcp, Iterable<Inet.SocketOption> options) {
        List<Inet.SocketOption> all = new ArrayList<>();
        options.forEach(all::add);
        if (all.stream().noneMatch(o -> o.getClass().getSimpleName().equals("TcpNoDelay"))) {
            all.add(TcpSO.tcpNoDelay(tcp.noDelay()));
        }
        return all;
    }

    /** Why Pekko refused a command: its cause, or an IOException saying what it reported. */
    static Throwable causeOf(Tcp.CommandFailed failed) {
        return failed.cause().isDefined() ? failed.cause().get()
                : new IOException("Pekko IO refused " + failed.cmd() + failed.causedByString());
    }
}
