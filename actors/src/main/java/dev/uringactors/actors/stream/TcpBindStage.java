package dev.uringactors.actors.stream;

import dev.uringactors.actors.internal.backend.IoBackend;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.internal.tcp.TcpManager;
import dev.uringactors.actors.internal.tcp.conn.Connection;
import dev.uringactors.actors.tcp.TcpProtocol;
import dev.uringactors.actors.tcp.TcpProtocol.Event;
import dev.uringactors.actors.tcp.TcpSocketOptions;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStageLogic;
import scala.runtime.BoxedUnit;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A listener as a {@code Source} of incoming connections. It binds in pull mode: each pull is credit for one
 * more accept, so connections nobody asked for wait in the kernel's backlog. Cancelling it unbinds. Under the JDK
 * backend the listener is {@code PekkoListener}, and a connection's handler runs where its materializer says.
 */
final class TcpBindStage extends AbstractGraphStageWithMaterializedValue<SourceShape<UringTcp.IncomingConnection>,
        CompletionStage<UringTcp.ServerBinding>> {
    private final Outlet<UringTcp.IncomingConnection> out = Outlet.create("UringTcp.bind");
    private final SourceShape<UringTcp.IncomingConnection> shape = SourceShape.of(out);
    private final InetSocketAddress address;
    private final int backlog;
    private final boolean halfClose;
    private final TcpSocketOptions options;

    TcpBindStage(InetSocketAddress address, int backlog, boolean halfClose, TcpSocketOptions options) {
        this.address = address;
        this.backlog = backlog;
        this.halfClose = halfClose;
        this.options = options;
    }

    @Override
    public SourceShape<UringTcp.IncomingConnection> shape() {
        return shape;
    }

    @Override
    public Pair<GraphStageLogic, CompletionStage<UringTcp.ServerBinding>> createLogicAndMaterializedValuePair(
            Attributes attributes) {
        CompletableFuture<UringTcp.ServerBinding> binding = new CompletableFuture<>();
        return Pair.create(new Logic(binding), binding);
    }

    private final class Logic extends GraphStageLogic {
        private final CompletableFuture<UringTcp.ServerBinding> binding;
        private final ArrayDeque<TcpProtocol.Connected> waiting = new ArrayDeque<>();
        private final CompletableFuture<Void> unbound = new CompletableFuture<>();
        private ActorRef<Event> self;
        private ActorRef<TcpProtocol.ListenerCommand> listener;
        private AsyncCallback<Void> unbindRequested;
        private IoBackend backend;

        Logic(CompletableFuture<UringTcp.ServerBinding> binding) {
            super(shape);
            this.binding = binding;
            setHandler(out, new AbstractOutHandler() {
                @Override
                public void onPull() {
                    if (!waiting.isEmpty()) {
                        push(out, release(waiting.poll()));
                    } else if (listener != null) {
                        listener.tell(new TcpProtocol.ResumeAccepting(1));
                    }
                }

                @Override
                public void onDownstreamFinish(Throwable cause) {
                    unbind();
                }
            });
        }

        @Override
        public void preStart() {
            setKeepGoing(true);
            // The stage actor is the handler: its messages run on the stage, in order.
            self = Adapter.toTyped(getStageActor(message -> {
                onEvent((Event) message._2());
                return BoxedUnit.UNIT;
            }).ref());
            unbindRequested = createAsyncCallback(v -> unbind());
            backend = IoBackends.get(Adapter.toTyped(materializer().system()));
            TcpManager.get(Adapter.toTyped(materializer().system())).manager()
                    .tell(new TcpProtocol.Bind(self, address, backlog, true, options));
        }

        /** Hands out a held connection, whose register time-out starts again now. */
        private UringTcp.IncomingConnection release(TcpProtocol.Connected c) {
            Connection.HoldRegistration.tell(c.connection(), false);
            return incoming(c);
        }

        private void onEvent(Event event) {
            if (event instanceof TcpProtocol.Bound b) {
                listener = b.listener();
                binding.complete(new UringTcp.ServerBinding(b.localAddress(), () -> {
                    unbindRequested.invoke(null); // from any thread
                    return unbound;
                }, unbound));
                if (isAvailable(out)) {
                    listener.tell(new TcpProtocol.ResumeAccepting(1));
                }
            } else if (event instanceof TcpProtocol.Connected c) {
                if (isAvailable(out)) {
                    push(out, incoming(c));
                } else {
                    // Accepted on another ring with the same credit: held here until the consumer asks for one,
                    // which may take longer than the register time-out (max-connections reached, say).
                    Connection.HoldRegistration.tell(c.connection(), true);
                    waiting.add(c);
                }
            } else if (event instanceof TcpProtocol.CommandFailed f) {
                binding.completeExceptionally(f.cause()); // a UringException: EADDRINUSE and its hint
                failStage(f.cause());
            } else if (event == TcpProtocol.Unbound.INSTANCE) {
                waiting.forEach(c -> c.connection().tell(TcpProtocol.CloseCommand.ABORT));
                unbound.complete(null);
                completeStage();
            }
        }

        private UringTcp.IncomingConnection incoming(TcpProtocol.Connected c) {
            return new UringTcp.IncomingConnection(c.localAddress(), c.remoteAddress(),
                    Flow.fromGraph(TcpConnectionStage.accepted(c.connection(), halfClose))
                            .mapMaterializedValue(m -> NotUsed.getInstance()),
                    c.ring(), backend.ringDispatcherId(c.ring()).orElse(null));
        }

        private void unbind() {
            if (listener != null) {
                listener.tell(new TcpProtocol.Unbind(self));
            } else {
                completeStage();
            }
        }
    }
}
