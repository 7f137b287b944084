package dev.uringactors.bench;

import com.google.protobuf.ByteString;
import dev.uringactors.bench.grpc.BenchEchoGrpc;
import dev.uringactors.bench.grpc.Payload;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unary calls kept in flight on one channel, each answer starting the next call of its chain, for a bounded time.
 * Any failed call, or an answer that is not the payload sent, fails the run.
 */
final class UnaryCallLoop {
    private final BenchEchoGrpc.BenchEchoStub stub;
    private final Payload request;
    private final AtomicLong answered = new AtomicLong();
    private final CompletableFuture<Void> failed = new CompletableFuture<>();
    private final CountDownLatch chainsEnded;
    private volatile boolean running = true;

    private UnaryCallLoop(ManagedChannel channel, int inFlight, int bytes) {
        this.stub = BenchEchoGrpc.newStub(channel);
        this.request = payload(bytes);
        this.chainsEnded = new CountDownLatch(inFlight);
    }

    /**
     * Calls per second over {@code seconds}, with {@code inFlight} calls outstanding, each of {@code bytes}; a failure
     * names {@code server} and the call's gRPC status.
     */
    static double callsPerSecond(String server, ManagedChannel channel, int inFlight, int bytes, int seconds)
            throws Exception {
        UnaryCallLoop loop = new UnaryCallLoop(channel, inFlight, bytes);
        for (int i = 0; i < inFlight; i++) {
            loop.call();
        }
        double rate = Throughput.measure(loop.answered::get, 0, seconds).perSecond();
        loop.running = false;
        if (!loop.chainsEnded.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(server + ": calls still unanswered 30 s after the run");
        }
        if (loop.failed.isCompletedExceptionally()) {
            Throwable first = loop.failed.handle((ok, failure) -> failure).join();
            throw new IllegalStateException(server + ": a call failed: " + Status.fromThrowable(first), first);
        }
        return rate;
    }

    /** One call, answered with the payload sent within 10 s, or the run fails naming {@code server}. */
    static void checkOneCall(String server, ManagedChannel channel, int bytes) {
        Payload request = payload(bytes);
        Payload reply = BenchEchoGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).echo(request);
        if (!reply.equals(request)) {
            throw new IllegalStateException(server + ": the echo answered " + reply.getData().size() + " bytes of "
                    + bytes);
        }
    }

    /** A call's request as it goes on the wire: gRPC's frame (uncompressed, its length) around the payload. */
    static byte[] frame(int bytes) {
        byte[] message = payload(bytes).toByteArray();
        return ByteBuffer.allocate(5 + message.length).put((byte) 0).putInt(message.length).put(message).array();
    }

    private static Payload payload(int bytes) {
        return Payload.newBuilder().setData(ByteString.copyFrom(new byte[bytes])).build();
    }

    private void call() {
        stub.withDeadlineAfter(10, TimeUnit.SECONDS).echo(request, new StreamObserver<>() {
            @Override
            public void onNext(Payload reply) {
                if (reply.getData().size() != request.getData().size()) {
                    failed.completeExceptionally(new IllegalStateException("an answer of "
                            + reply.getData().size() + " bytes to " + request.getData().size()));
                }
            }

            @Override
            public void onError(Throwable t) {
                failed.completeExceptionally(t);
                chainsEnded.countDown();
            }

            @Override
            public void onCompleted() {
                answered.incrementAndGet();
                if (running && !failed.isDone()) {
                    call();
                } else {
                    chainsEnded.countDown();
                }
            }
        });
    }
}
