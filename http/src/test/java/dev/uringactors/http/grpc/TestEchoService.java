package dev.uringactors.http.grpc;

import dev.uringactors.http.grpc.echo.EchoReply;
import dev.uringactors.http.grpc.echo.EchoRequest;
import dev.uringactors.http.grpc.echo.EchoService;
import dev.uringactors.http.grpc.echo.HeldRequest;
import dev.uringactors.http.grpc.echo.StreamRequest;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.IntStream;

/**
 * The service of echo.proto, showing the tests what a client cannot see: how each stream ended on the server and
 * whether a held call reached its handler; and releasing held calls when a test says. Calls are keyed by the
 * request's text (each test call uses its own).
 */
final class TestEchoService implements EchoService {
    private final ConcurrentMap<String, CompletableFuture<Done>> streamEnds = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, HeldCall> heldCalls = new ConcurrentHashMap<>();

    static EchoReply reply(String text, long number) {
        return EchoReply.newBuilder().setText(text).setNumber(number).build();
    }

    @Override
    public CompletionStage<EchoReply> echo(EchoRequest in) {
        return CompletableFuture.completedFuture(reply(in.getText(), in.getNumber()));
    }

    @Override
    public Source<EchoReply, NotUsed> stream(StreamRequest in) {
        CompletableFuture<Done> end = streamEnd(in.getText());
        return Source.fromIterator(() -> IntStream.range(0, in.getCount()).iterator())
                .map(i -> reply(in.getText(), i))
                .watchTermination((notUsed, done) -> {
                    done.whenComplete((ok, failure) -> {
                        if (failure == null) {
                            end.complete(ok);
                        } else {
                            end.completeExceptionally(failure);
                        }
                    });
                    return notUsed;
                });
    }

    @Override
    public CompletionStage<EchoReply> held(HeldRequest in) {
        HeldCall call = heldCall(in.getText());
        call.reached().complete(null);
        return call.reply();
    }

    /** How the stream of the call with {@code text} ended on the server: completed, cancelled or failed. */
    CompletableFuture<Done> streamEnd(String text) {
        return streamEnds.computeIfAbsent(text, t -> new CompletableFuture<>());
    }

    /** The held call with {@code text}: whether it has reached its handler, and the reply that releases it. */
    HeldCall heldCall(String text) {
        return heldCalls.computeIfAbsent(text, t -> new HeldCall(new CompletableFuture<>(), new CompletableFuture<>()));
    }

    record HeldCall(CompletableFuture<Void> reached, CompletableFuture<EchoReply> reply) {
        /** Lets the handler answer. */
        void release() {
            reply.complete(TestEchoService.reply("released", 0));
        }
    }
}
