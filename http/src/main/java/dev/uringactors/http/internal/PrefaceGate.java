package dev.uringactors.http.internal;

import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.util.ByteString;

import java.nio.charset.StandardCharsets;

/**
 * A connection's first bytes, held until they tell HTTP/2's client preface from anything else, for Pekko HTTP's
 * switch between HTTP/2 and HTTP/1.1 without TLS: that switch decides on the first chunk it is given, and takes a
 * chunk shorter than the preface for HTTP/1.1 even when it is the preface's start (the client then gets "501
 * Unsupported HTTP method: PRI"). A ring's receive can end anywhere in what a client sent at once (its buffers are
 * shared by the ring's connections and filled piece by piece), and a client's writes can split the preface too.
 * So nothing passes until there are as many bytes as the preface, or bytes that differ from its start, or the end
 * of the stream; from then on every chunk passes as it comes.
 */
final class PrefaceGate extends GraphStage<FlowShape<ByteString, ByteString>> {
    /** RFC 9113, 3.4. */
    private static final ByteString PREFACE =
            ByteString.fromString("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", StandardCharsets.US_ASCII);
    private final Inlet<ByteString> in = Inlet.create("PrefaceGate.in");
    private final Outlet<ByteString> out = Outlet.create("PrefaceGate.out");
    private final FlowShape<ByteString, ByteString> shape = FlowShape.of(in, out);

    @Override
    public FlowShape<ByteString, ByteString> shape() {
        return shape;
    }

    @Override
    public GraphStageLogic createLogic(Attributes inheritedAttributes) {
        return new GraphStageLogic(shape) {
            private ByteString held = ByteString.emptyByteString();
            private boolean open;

            {
                setHandler(in, new AbstractInHandler() {
                    @Override
                    public void onPush() {
                        ByteString bytes = grab(in);
                        if (open) {
                            push(out, bytes);
                            return;
                        }
                        held = held.concat(bytes);
                        if (held.size() >= PREFACE.size() || !PREFACE.take(held.size()).equals(held)) {
                            open = true;
                            push(out, held);
                            held = ByteString.emptyByteString();
                        } else {
                            pull(in);
                        }
                    }

                    @Override
                    public void onUpstreamFinish() {
                        if (!held.isEmpty()) {
                            emit(out, held);
                        }
                        completeStage();
                    }
                });
                setHandler(out, new AbstractOutHandler() {
                    @Override
                    public void onPull() {
                        pull(in);
                    }
                });
            }
        };
    }
}
