package dev.uringactors.http.grpc;

import com.google.common.util.concurrent.ListenableFuture;
import dev.uringactors.http.grpc.echo.EchoReply;
import dev.uringactors.http.grpc.echo.EchoRequest;
import dev.uringactors.http.grpc.echo.EchoServiceGrpc;
import dev.uringactors.http.grpc.echo.HeldRequest;
import dev.uringactors.http.grpc.echo.StreamRequest;
import dev.uringactors.ring.OpenFds;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a grpc-java client sees of the echo service, whichever transport serves it: unary calls, a method the
 * service lacks, a long server stream, a deadline that runs out, a call cancelled mid-stream. {@link GrpcTest} runs it once per transport.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class EchoCalls {
    private static final int STREAMED = 10_000;
    private final EchoServer.Transport transport;
    private final ActorTestKit testKit = ActorTestKit.create();
    private final TestEchoService service = new TestEchoService();
    private ServerBinding binding;
    private ManagedChannel channel;

    EchoCalls(EchoServer.Transport transport) {
        this.transport = transport;
    }

    @BeforeAll
    void bind() throws Exception {
        binding = get(EchoServer.bind(transport, testKit.system(), service));
        channel = channel();
        // The server answers before any test starts its clock: the first call warms a cold JVM.
        assertEquals("up", blocking(channel).echo(EchoRequest.newBuilder().setText("up").build()).getText());
    }

    @AfterAll
    void shutDown() throws Exception {
        try {
            if (channel != null) {
                close(channel);
            }
            if (binding != null) {
                get(binding.unbind());
            }
        } finally {
            testKit.shutdownTestKit();
        }
    }

    @Test
    void unaryCallsGetTheirOwnReplies() {
        EchoServiceGrpc.EchoServiceBlockingStub stub = blocking(channel);
        for (int i = 0; i < 100; i++) {
            String text = "unary " + i + " " + "x".repeat(i * 100);
            EchoReply reply = stub.echo(EchoRequest.newBuilder().setText(text).setNumber(i).build());
            assertEquals(text, reply.getText());
            assertEquals(i, reply.getNumber());
        }
        String large = "y".repeat(1 << 20);
        assertEquals(large, stub.echo(EchoRequest.newBuilder().setText(large).build()).getText());
    }

    @Test
    void concurrentUnaryCallsOnOneConnectionEachGetTheirOwnReply() throws Exception {
        EchoServiceGrpc.EchoServiceFutureStub stub = EchoServiceGrpc.newFutureStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS);
        List<ListenableFuture<EchoReply>> replies = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            replies.add(stub.echo(EchoRequest.newBuilder().setText("concurrent " + i).setNumber(i).build()));
        }
        for (int i = 0; i < replies.size(); i++) {
            EchoReply reply = replies.get(i).get(30, TimeUnit.SECONDS);
            assertEquals("concurrent " + i, reply.getText());
            assertEquals(i, reply.getNumber());
        }
    }

    @Test
    void aMethodTheServiceDoesNotHaveIsUnimplementedAndTheConnectionGoesOn() {
        MethodDescriptor<EchoRequest, EchoReply> missing = EchoServiceGrpc.getEchoMethod().toBuilder()
                .setFullMethodName(MethodDescriptor.generateFullMethodName(EchoServiceGrpc.SERVICE_NAME, "Missing"))
                .build();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(
                channel, missing, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                EchoRequest.newBuilder().setText("nobody answers").build()));
        assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode(), e.toString());
        assertEquals("next", blocking(channel).echo(EchoRequest.newBuilder().setText("next").build()).getText());
    }

    @Test
    void aServerStreamOfTenThousandRepliesArrivesWholeAndInOrder() throws Exception {
        String text = "stream of " + STREAMED;
        Iterator<EchoReply> replies = blocking(channel)
                .stream(StreamRequest.newBuilder().setText(text).setCount(STREAMED).build());
        for (int i = 0; i < STREAMED; i++) {
            assertTrue(replies.hasNext(), "the stream ended after " + i + " replies");
            EchoReply reply = replies.next();
            assertEquals(i, reply.getNumber());
            assertEquals(text, reply.getText());
        }
        assertFalse(replies.hasNext(), "more than " + STREAMED + " replies");
        get(service.streamEnd(text)); // and the server's source completed, not failed
    }

    @Test
    void aDeadlineThatPassesWhileTheHandlerHoldsEndsTheCallAndTheServerServesTheNext() throws Exception {
        // First a held call that is released in time: it answers, and its path is warm on a busy machine.
        TestEchoService.HeldCall warm = service.heldCall("released in time");
        ListenableFuture<EchoReply> answered = held("released in time", 30);
        get(warm.reached());
        warm.release();
        assertEquals("released", answered.get(10, TimeUnit.SECONDS).getText());

        String text = "held past its deadline";
        TestEchoService.HeldCall held = service.heldCall(text);
        ListenableFuture<EchoReply> call = held(text, 3);
        get(held.reached());
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, Status.fromThrowable(e.getCause()).getCode(), e.toString());

        // The handler now answers a call the client has reset; the connection goes on serving.
        held.release();
        EchoReply next = blocking(channel).echo(EchoRequest.newBuilder().setText("after the deadline").build());
        assertEquals("after the deadline", next.getText());
    }

    @Test
    void aCallCancelledMidStreamCancelsTheServersSourceAndFreesItsConnection() throws Exception {
        // The shared channel's connection is up, so only this test's connection comes and goes.
        blocking(channel).echo(EchoRequest.newBuilder().setText("before").build());
        OpenFds.Snapshot sockets = OpenFds.snapshot(OpenFds.Kind.SOCKETS);
        ManagedChannel own = channel();
        try {
            String text = "cancelled mid-stream";
            AtomicInteger received = new AtomicInteger();
            CompletableFuture<Status> ended = new CompletableFuture<>();
            EchoServiceGrpc.newStub(own).stream(StreamRequest.newBuilder().setText(text)
                    .setCount(Integer.MAX_VALUE).build(), new CancelAfter(100, received, ended));

            assertEquals(Status.Code.CANCELLED, get(ended).getCode());
            // Endless but for the cancel: the source ends only because the client's reset reached it, while the
            // connection is still open.
            get(service.streamEnd(text).handle((done, failure) -> done));
            assertTrue(received.get() >= 100, received.get() + " replies before the cancel");
            assertEquals("still open", blocking(own).echo(EchoRequest.newBuilder().setText("still open").build())
                    .getText());
        } finally {
            close(own);
        }
        sockets.assertNoneNew("the connection's sockets closed");
    }

    /** Receives replies and cancels the call at the {@code limit}th; completes {@code ended} with the status. */
    private static final class CancelAfter implements ClientResponseObserver<StreamRequest, EchoReply> {
        private final int limit;
        private final AtomicInteger received;
        private final CompletableFuture<Status> ended;
        private volatile ClientCallStreamObserver<StreamRequest> call;

        CancelAfter(int limit, AtomicInteger received, CompletableFuture<Status> ended) {
            this.limit = limit;
            this.received = received;
            this.ended = ended;
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<StreamRequest> requestStream) {
            call = requestStream;
        }

        @Override
        public void onNext(EchoReply reply) {
            if (received.incrementAndGet() == limit) {
                call.cancel("the test cancels mid-stream", null);
            }
        }

        @Override
        public void onError(Throwable t) {
            ended.complete(Status.fromThrowable(t));
        }

        @Override
        public void onCompleted() {
            ended.complete(Status.OK);
        }
    }

    private ListenableFuture<EchoReply> held(String text, long deadlineSeconds) {
        return EchoServiceGrpc.newFutureStub(channel).withDeadlineAfter(deadlineSeconds, TimeUnit.SECONDS)
                .held(HeldRequest.newBuilder().setText(text).build());
    }

    private ManagedChannel channel() {
        return Grpc.newChannelBuilderForAddress("127.0.0.1", binding.localAddress().getPort(),
                InsecureChannelCredentials.create()).build();
    }

    private static EchoServiceGrpc.EchoServiceBlockingStub blocking(ManagedChannel channel) {
        return EchoServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    private static void close(ManagedChannel channel) throws InterruptedException {
        channel.shutdownNow();
        assertTrue(channel.awaitTermination(10, TimeUnit.SECONDS), "the client channel did not terminate");
    }

    private static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
