package dev.uringactors.http.grpc;

import dev.uringactors.actors.UringExtension;
import dev.uringactors.http.grpc.echo.EchoReply;
import dev.uringactors.http.grpc.echo.EchoRequest;
import dev.uringactors.http.grpc.echo.EchoService;
import dev.uringactors.http.grpc.echo.EchoServiceGrpc;
import dev.uringactors.http.grpc.echo.HeldRequest;
import dev.uringactors.http.grpc.echo.StreamRequest;
import dev.uringactors.ring.RequiresIoUring;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which threads run a gRPC service's methods on the rings, with the ring materializer (as the guide advises): the
 * service's replies name the threads, so the client reads what the guide says. A unary method is called on the
 * JDK's default async pool; a streaming method too, but its source's elements are made on the connection's
 * ring; a unary method that hands its work to a ring's dispatcher does that work on the ring.
 */
@ExtendWith(RequiresIoUring.class)
class GrpcThreadsTest {
    private final ActorTestKit testKit = ActorTestKit.create();

    @AfterEach
    void shutDown() {
        testKit.shutdownTestKit();
    }

    @Test
    void aUnaryMethodIsCalledOnTheDefaultAsyncPoolWhicheverMaterializer() throws Exception {
        for (EchoServer.Transport handler : EchoServer.Transport.values()) { // the ring's materializer, the system's
            String thread = call(handler, new WhereItRuns(testKit.system(), false), stub -> List.of(
                    stub.echo(EchoRequest.newBuilder().setText("where").build()).getText())).get(0);
            assertTrue(isDefaultAsyncPool(thread), handler + "'s handler: called on " + thread);
        }
    }

    @Test
    void aStreamingMethodIsCalledThereTooButItsElementsAreMadeOnTheRing() throws Exception {
        List<String> replies = call(EchoServer.Transport.RINGS, new WhereItRuns(testKit.system(), false), stub -> {
            List<String> texts = new ArrayList<>();
            stub.stream(StreamRequest.newBuilder().setCount(3).build()).forEachRemaining(r -> texts.add(r.getText()));
            return texts;
        });
        assertEquals(3, replies.size());
        for (String reply : replies) {
            String[] where = reply.split(" / ");
            assertTrue(isDefaultAsyncPool(where[0]), "called on " + where[0]);
            assertTrue(where[1].startsWith("uring-ring-"), "an element made on " + where[1]);
        }
    }

    @Test
    void aUnaryMethodThatHandsItsWorkToARingDoesItThere() throws Exception {
        String thread = call(EchoServer.Transport.RINGS, new WhereItRuns(testKit.system(), true), stub -> List.of(
                stub.echo(EchoRequest.newBuilder().setText("where").build()).getText())).get(0);
        assertTrue(thread.startsWith("uring-ring-"), "the work ran on " + thread);
    }

    /** CompletableFuture's default async executor: the common pool, or with parallelism 1 a thread per task. */
    private static boolean isDefaultAsyncPool(String thread) {
        return thread.startsWith("ForkJoinPool.commonPool-worker-")
                || ForkJoinPool.getCommonPoolParallelism() <= 1 && thread.matches("Thread-\\d+");
    }

    private interface Calls {
        List<String> on(EchoServiceGrpc.EchoServiceBlockingStub stub);
    }

    /**
     * Binds {@code service} on the rings with {@code handler}'s handler (RINGS: with the ring materializer, as the
     * guide does), and makes {@code calls} on one channel.
     */
    private List<String> call(EchoServer.Transport handler, EchoService service, Calls calls) throws Exception {
        ServerBinding binding = EchoServer.Transport.RINGS.serverAt(testKit.system(), "127.0.0.1", 0)
                .adaptSettings(settings -> settings.withEnableHttp2(true))
                .bind(handler.handler(service, testKit.system()))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", binding.localAddress().getPort(),
                InsecureChannelCredentials.create()).build();
        try {
            return calls.on(EchoServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS));
        } finally {
            channel.shutdownNow();
            assertTrue(channel.awaitTermination(10, TimeUnit.SECONDS), "the client channel did not terminate");
            binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** Replies with the names of the threads that ran it; {@code onARing}: a unary call's work goes to a ring. */
    private static final class WhereItRuns implements EchoService {
        private final ActorSystem<?> system;
        private final boolean onARing;

        WhereItRuns(ActorSystem<?> system, boolean onARing) {
            this.system = system;
            this.onARing = onARing;
        }

        @Override
        public CompletionStage<EchoReply> echo(EchoRequest in) {
            if (!onARing) {
                return CompletableFuture.completedFuture(reply(Thread.currentThread().getName()));
            }
            // snippet:grpc-unary-on-a-ring
            UringExtension uring = UringExtension.get(system);
            Executor ring = system.dispatchers().lookup(uring.dispatcher(uring.nextRing()));
            return CompletableFuture.supplyAsync(() -> reply(Thread.currentThread().getName()), ring); // on that ring
            // end
        }

        @Override
        public Source<EchoReply, NotUsed> stream(StreamRequest in) {
            String caller = Thread.currentThread().getName();
            return Source.range(1, in.getCount()).map(i -> reply(caller + " / " + Thread.currentThread().getName()));
        }

        @Override
        public CompletionStage<EchoReply> held(HeldRequest in) {
            return CompletableFuture.completedFuture(reply(Thread.currentThread().getName()));
        }

        private static EchoReply reply(String text) {
            return EchoReply.newBuilder().setText(text).build();
        }
    }
}
