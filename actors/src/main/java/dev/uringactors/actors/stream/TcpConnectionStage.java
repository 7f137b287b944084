package dev.uringactors.actors.stream;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.internal.tcp.TcpManager;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Ack;
import dev.uringactors.actors.tcp.TcpProtocol.CloseCommand;
import dev.uringactors.actors.tcp.TcpProtocol.CommandFailed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionClosed;
import dev.uringactors.actors.tcp.TcpProtocol.ConnectionCommand;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpProtocol.ReadControl;
import org.apache.pekko.actor.Status;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.io.Dns;
import org.apache.pekko.io.dns.DnsProtocol;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.StreamTcpException;
import org.apache.pekko.stream.SubscriptionWithCancelException;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.util.ByteString;
import scala.Option;
import scala.runtime.BoxedUnit;

import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A TCP connection as a {@code Flow<ByteString, ByteString>}: what flows in is written (one write awaiting its
 * acknowledgement at a time; what comes meanwhile is joined into the next write, and taken as long as the bytes
 * not yet acknowledged stay within {@code uring.tcp.max-write-queue}, as Pekko's own TCP stage takes up to its
 * write buffer's size: a layer above that answers many small elements at once is not held back by their number,
 * and they leave in few sends, which a peer reads in few segments), what the peer sends flows out (reading is
 * suspended while more than a few chunks wait for demand). The stage's own actor is the connection's registered
 * handler. The output completes when the peer closes its side; completing the input then closes the connection
 * (with half-close: shuts down our side and waits for the peer's), after everything written has been sent.
 */
final class TcpConnectionStage extends AbstractGraphStageWithMaterializedValue<FlowShape<ByteString, ByteString>,
        CompletionStage<UringTcp.OutgoingConnection>> {
    private static final int MAX_BUFFERED = 16;

    private final Inlet<ByteString> in = Inlet.create("UringTcp.in");
    private final Outlet<ByteString> out = Outlet.create("UringTcp.out");
    private final FlowShape<ByteString, ByteString> shape = FlowShape.of(in, out);
    /** An accepted connection, or null for an outgoing one ({@link #outgoing}). */
    private final ActorRef<ConnectionCommand> accepted;
    /** The Connect of an outgoing connection, for a given handler; its address may be a name to look up. */
    private final Function<ActorRef<Event>, TcpProtocol.Connect> outgoing;
    private final boolean halfClose;

    private TcpConnectionStage(ActorRef<ConnectionCommand> accepted,
                               Function<ActorRef<Event>, TcpProtocol.Connect> outgoing, boolean halfClose) {
        this.accepted = accepted;
        this.outgoing = outgoing;
        this.halfClose = halfClose;
    }

    static TcpConnectionStage accepted(ActorRef<ConnectionCommand> connection, boolean halfClose) {
        return new TcpConnectionStage(connection, null, halfClose);
    }

    /** An outgoing connection that sends {@code connect} with its own actor as the handler. */
    static TcpConnectionStage outgoing(Function<ActorRef<Event>, TcpProtocol.Connect> connect, boolean halfClose) {
        return new TcpConnectionStage(null, connect, halfClose);
    }

    @Override
    public FlowShape<ByteString, ByteString> shape() {
        return shape;
    }

    @Override
    public Pair<GraphStageLogic, CompletionStage<UringTcp.OutgoingConnection>> createLogicAndMaterializedValuePair(
            Attributes attributes) {
        CompletableFuture<UringTcp.OutgoingConnection> connected = new CompletableFuture<>();
        return Pair.create(new Logic(connected), connected);
    }

    private final class Logic extends GraphStageLogic {
        private final CompletableFuture<UringTcp.OutgoingConnection> connected;
        private final ArrayDeque<ByteString> received = new ArrayDeque<>();
        private ActorRef<ConnectionCommand> connection;
        private ActorRef<Event> self;
        /** The outgoing connection's Connect as the flow was made (its address may be a name), or null. */
        private TcpProtocol.Connect connect;
        /** The bytes of the write awaiting its acknowledgement; 0 when none does. */
        private long unacknowledgedBytes;
        /** Elements taken while a write awaits its acknowledgement: joined into one write, sent once it comes. */
        private ByteString pending = ByteString.emptyByteString();
        private long maxWriteQueue;
        private boolean suspended;
        private boolean peerClosed;
        /** The connection has sent its last event: once the data is delivered, the stage is done. */
        private boolean connectionDone;
        private boolean inputDone;

        Logic(CompletableFuture<UringTcp.OutgoingConnection> connected) {
            super(shape);
            this.connected = connected;
            setHandler(in, new AbstractInHandler() {
                @Override
                public void onPush() {
                    pending = pending.concat(grab(in));
                    writePendingIfRoom();
                    pullIfRoom();
                }

                @Override
                public void onUpstreamFinish() {
                    inputDone = true;
                    closeIfWritten();
                }

                @Override
                public void onUpstreamFailure(Throwable e) {
                    abort(e);
                }
            });
            setHandler(out, new AbstractOutHandler() {
                @Override
                public void onPull() {
                    deliver();
                }

                @Override
                public void onDownstreamFinish(Throwable cause) {
                    if (!(cause instanceof SubscriptionWithCancelException.NonFailureCancellation)) {
                        abort(cause); // the handler failed: what it still had to say is lost anyway
                        return;
                    }
                    cancel(in);
                    if (connection != null) {
                        connection.tell(CloseCommand.CLOSE); // its Closed event ends the stage
                    } else {
                        completeStage();
                    }
                }
            });
        }

        @Override
        public void preStart() {
            setKeepGoing(true); // the close handshake finishes after both ports are done
            // The stage actor is the handler: its messages run on the stage, in order.
            org.apache.pekko.actor.ActorRef stageActor = getStageActor(message -> {
                onMessage(message._2());
                return BoxedUnit.UNIT;
            }).ref();
            self = Adapter.toTyped(stageActor);
            maxWriteQueue = UringExtension.get(Adapter.toTyped(materializer().system())).settings().tcp()
                    .maxWriteQueue();
            if (accepted != null) {
                start(accepted);
                return;
            }
            connect = outgoing.apply(self);
            InetSocketAddress remote = connect.remoteAddress();
            if (!remote.isUnresolved()) {
                connectTo(remote);
                return;
            }
            // A name is looked up as Pekko's own TCP stage does: through its DNS extension, answered from its
            // cache at once or later to the stage actor, so no thread waits for the resolver.
            Option<DnsProtocol.Resolved> cached = Dns.get(materializer().system()).cache()
                    .resolve(DnsProtocol.resolve(remote.getHostString()), materializer().system(), stageActor);
            if (cached.isDefined()) {
                onResolved(cached.get());
            }
        }

        private void onMessage(Object message) {
            if (message instanceof DnsProtocol.Resolved resolved) {
                onResolved(resolved);
            } else if (message instanceof Status.Failure failure) { // the resolver failed
                abort(failure.cause());
            } else {
                onEvent((Event) message);
            }
        }

        private void onResolved(DnsProtocol.Resolved resolved) {
            try {
                connectTo(new InetSocketAddress(resolved.address(), connect.remoteAddress().getPort()));
            } catch (UnknownHostException e) {
                abort(e);
            }
        }

        private void connectTo(InetSocketAddress address) {
            TcpProtocol.Connect c = connect;
            TcpManager.get(Adapter.toTyped(materializer().system())).manager().tell(
                    new TcpProtocol.Connect(self, address, c.localAddress(), c.options(), c.timeout()));
        }

        private void start(ActorRef<ConnectionCommand> c) {
            connection = c;
            // Always kept open on the peer's end of stream: replies still in the user's flow must get out. The
            // connection closes when this stage's input completes (fully, or with half-close only our side).
            connection.tell(new TcpProtocol.Register(self, true));
            if (inputDone) {
                closeIfWritten();
            } else {
                pull(in);
            }
        }

        /**
         * Writes the pending bytes unless a write awaits its acknowledgement. So the connection never refuses a
         * write of this stage, and what the layer above gives while one is sent leaves in one send after it.
         */
        private void writePendingIfRoom() {
            if (pending.isEmpty() || connection == null || unacknowledgedBytes > 0) {
                return;
            }
            unacknowledgedBytes = pending.size();
            connection.tell(new TcpProtocol.Write(pending, new Ack(pending.size())));
            pending = ByteString.emptyByteString();
            closeIfWritten();
        }

        /** The input is done and all of it is handed to the connection: close (queued writes are sent first). */
        private void closeIfWritten() {
            if (inputDone && pending.isEmpty() && connection != null) {
                // The connection then closes, or with half-close shuts down only our side.
                connection.tell(halfClose ? CloseCommand.CONFIRMED_CLOSE : CloseCommand.CLOSE);
            }
        }

        private void onEvent(Event event) {
            if (event instanceof TcpProtocol.Received r) {
                received.add(r.data());
                if (!suspended && received.size() > MAX_BUFFERED) {
                    suspended = true;
                    connection.tell(ReadControl.SUSPEND_READING);
                }
                deliver();
            } else if (event instanceof Ack ack) {
                unacknowledgedBytes -= (Integer) ack.token();
                writePendingIfRoom();
                pullIfRoom();
            } else if (event instanceof TcpProtocol.Connected c) {
                connected.complete(new UringTcp.OutgoingConnection(c.remoteAddress(), c.localAddress()));
                start(c.connection());
            } else if (event instanceof TcpProtocol.PeerClosed) {
                peerClosed = true; // the output completes; the close follows when the input does
                deliver();
            } else if (event instanceof TcpProtocol.ErrorClosed e) {
                fail(new StreamTcpException("the connection failed: " + e.cause()));
            } else if (event instanceof TcpProtocol.Aborted) {
                fail(new StreamTcpException("the connection was aborted"));
            } else if (event instanceof ConnectionClosed) { // Closed, ConfirmedClosed: all is sent and done
                peerClosed = true;
                connectionDone = true;
                deliver();
            } else if (event instanceof CommandFailed f) {
                connected.completeExceptionally(f.cause()); // a failed Connect says why; else it is done already
                abort(new StreamTcpException("TCP command failed: " + f.cause().getMessage()));
            }
        }

        /** The connection has ended: the stage fails. */
        private void fail(StreamTcpException e) {
            connected.completeExceptionally(e);
            failStage(e);
        }

        /**
         * The stream failed: the connection is aborted (RST, queued writes dropped), not closed after its writes,
         * which a peer that reads nothing would never take; a failed stage leaves no socket behind.
         */
        private void abort(Throwable cause) {
            if (connection != null) {
                connection.tell(CloseCommand.ABORT);
            }
            connected.completeExceptionally(cause);
            failStage(cause);
        }

        /**
         * Takes more while the bytes not yet acknowledged and those pending stay within the write queue: the layer
         * above is held back by the bytes it has sent, not by how many elements they came in.
         */
        private void pullIfRoom() {
            if (!inputDone && unacknowledgedBytes + pending.size() < maxWriteQueue && !hasBeenPulled(in)
                    && !isClosed(in)) {
                pull(in);
            }
        }

        private void deliver() {
            while (isAvailable(out) && !received.isEmpty()) {
                push(out, received.poll());
            }
            if (suspended && received.size() < MAX_BUFFERED / 2) {
                suspended = false;
                connection.tell(ReadControl.RESUME_READING);
            }
            if (peerClosed && received.isEmpty() && !isClosed(out)) {
                complete(out); // the peer has closed its side: no more data will come
            }
            if (connectionDone && received.isEmpty()) {
                completeStage();
            }
        }

        @Override
        public void postStop() {
            connected.completeExceptionally(new StreamTcpException("the connection stage stopped before connecting"));
        }
    }
}
