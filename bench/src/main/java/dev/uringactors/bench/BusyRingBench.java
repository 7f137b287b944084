package dev.uringactors.bench;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How long an ask waits for an actor on a ring that something else keeps busy: an actor that sends itself a
 * message for ever, or a stream that never rests (on the ring's materializer). The figures behind the tests that
 * only check such an ask is answered (FairLoopTest, NearestRingMaterializerTest): median, 99th percentile and
 * slowest of {@code asks} asks sent one after another from a thread of their own, and, for scale, with the ring idle.
 */
final class BusyRingBench {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private record Ping(ActorRef<Boolean> replyTo) {
    }

    private BusyRingBench() {
    }

    static void main(Args args) throws Exception {
        int asks = args.intValue("asks", 2000);
        try (BenchSystem bench = new BenchSystem("")) {
            CompletableFuture<ActorRef<Ping>> echo = new CompletableFuture<>();
            bench.spawnOnRing(Behaviors.<Ping>setup(ctx -> {
                echo.complete(ctx.getSelf());
                return Behaviors.receiveMessage(p -> {
                    p.replyTo().tell(Boolean.TRUE);
                    return Behaviors.same();
                });
            }), "echo");
            ActorRef<Ping> target = echo.get(10, TimeUnit.SECONDS);
            report(args, "idle ring", latencies(bench, target, asks));

            bench.spawnOnRing(busy(), "busy");
            report(args, "behind a busy actor", latencies(bench, target, asks));
        }
        try (BenchSystem bench = new BenchSystem("")) {
            CompletableFuture<ActorRef<Ping>> echo = new CompletableFuture<>();
            CompletableFuture<UniqueKillSwitch> hot = new CompletableFuture<>();
            bench.spawnOnRing(Behaviors.<Ping>setup(ctx -> {
                echo.complete(ctx.getSelf());
                // Materialized on the ring's thread: the stream runs on that ring.
                hot.complete(Source.repeat(1).viaMat(KillSwitches.single(), Keep.right()).to(Sink.ignore())
                        .run(bench.uring.materializer()));
                return Behaviors.receiveMessage(p -> {
                    p.replyTo().tell(Boolean.TRUE);
                    return Behaviors.same();
                });
            }), "echo");
            ActorRef<Ping> target = echo.get(10, TimeUnit.SECONDS);
            hot.get(10, TimeUnit.SECONDS);
            report(args, "behind a never-resting stream", latencies(bench, target, asks));
            hot.get().shutdown();
        }
    }

    private static Behavior<String> busy() {
        return Behaviors.setup(ctx -> {
            ctx.getSelf().tell("go");
            return Behaviors.receiveMessage(m -> {
                ctx.getSelf().tell(m);
                return Behaviors.same();
            });
        });
    }

    /** Microseconds of each of {@code asks} asks, sorted, after as many unmeasured ones. */
    private static long[] latencies(BenchSystem bench, ActorRef<Ping> target, int asks) throws Exception {
        long[] micros = new long[asks];
        for (int i = -asks; i < asks; i++) {
            long start = System.nanoTime();
            AskPattern.<Ping, Boolean>ask(target, Ping::new, TIMEOUT, bench.system.scheduler())
                    .toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (i >= 0) {
                micros[i] = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            }
        }
        Arrays.sort(micros);
        return micros;
    }

    private static void report(Args args, String series, long[] micros) {
        long p50 = micros[micros.length / 2];
        long p99 = micros[(int) (micros.length * 0.99)];
        long max = micros[micros.length - 1];
        System.out.printf(Locale.ROOT, "busy-ring %s: ask p50 %d us, p99 %d us, max %d us (%d asks)%n", series,
                p50, p99, max, micros.length);
        args.figures("busy-ring").record(series, "percentile", 50, "ask us", p50);
        args.figures("busy-ring").record(series, "percentile", 99, "ask us", p99);
    }
}
